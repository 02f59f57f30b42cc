import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { AgentPingResult } from "@berth/protocol";
import type { AgentConnection } from "../agent-connection";
import { Liveness, type LivenessOptions, MISSED_BEATS_LIMIT } from "./liveness";
import { type SessionState, newSessionState } from "./session-state";

/** The part of an agent connection liveness uses: ping, closed, lastDataAt. */
function fakeConnection(answer: () => Promise<AgentPingResult>) {
  return { closed: false, lastDataAt: 0, ping: vi.fn(answer) };
}

function readyState(conn: ReturnType<typeof fakeConnection>): SessionState {
  const state = newSessionState("s1", "vol", false);
  state.status = "ready";
  state.attached = {
    containerId: "c1",
    conn: conn as unknown as AgentConnection,
    hello: { agentVersion: "test" } as never,
    readyAt: new Date(),
  };
  return state;
}

/** A heartbeat every 100 ms with a 50 ms ping timeout and no idle timeout, unless said otherwise. */
function liveness(opts: Partial<LivenessOptions> = {}): Liveness {
  return new Liveness({
    idleTimeoutMs: 0,
    heartbeatIntervalMs: 100,
    heartbeatTimeoutMs: 50,
    onIdle: vi.fn(),
    onUnresponsive: vi.fn(),
    warn: vi.fn(),
    ...opts,
  });
}

describe("Liveness", () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it("stops an idle sandbox once the timeout passes with nothing in flight, and waits while a call runs", () => {
    const onIdle = vi.fn();
    const idle = liveness({ idleTimeoutMs: 1_000, heartbeatIntervalMs: 0, onIdle });
    const state = readyState(fakeConnection(() => Promise.resolve({ runningProcesses: 0 } as AgentPingResult)));
    state.inFlight = 1;
    idle.markActive(state);
    vi.advanceTimersByTime(1_000);
    expect(onIdle).not.toHaveBeenCalled();
    state.inFlight = 0;
    vi.advanceTimersByTime(1_000);
    expect(onIdle).toHaveBeenCalledWith(state);
  });

  it("calls a sandbox unresponsive after the limit of missed heartbeats, warning on each", async () => {
    const onUnresponsive = vi.fn();
    const warn = vi.fn();
    const conn = fakeConnection(() => Promise.reject(new Error("ping timed out")));
    const beats = liveness({ onUnresponsive, warn });
    const state = readyState(conn);
    beats.startHeartbeat(state);
    for (let i = 0; i < MISSED_BEATS_LIMIT; i++) await vi.advanceTimersByTimeAsync(100);
    expect(warn).toHaveBeenCalledTimes(MISSED_BEATS_LIMIT);
    expect(warn.mock.calls[0]![1]).toMatch(/heartbeat missed \(1\/3\): ping timed out/);
    expect(onUnresponsive).toHaveBeenCalledWith(state);
    beats.clearTimers(state);
    expect(state.heartbeatTimer).toBeNull();
  });

  it("counts output that arrived after the ping as a beat, and a running background process as activity", async () => {
    const onUnresponsive = vi.fn();
    const conn = fakeConnection(() => Promise.reject(new Error("late")));
    const beats = liveness({ onUnresponsive });
    const state = readyState(conn);
    conn.lastDataAt = Number.MAX_SAFE_INTEGER; // megabytes of output ahead of the pong
    beats.startHeartbeat(state);
    for (let i = 0; i < MISSED_BEATS_LIMIT + 1; i++) await vi.advanceTimersByTimeAsync(100);
    expect(onUnresponsive).not.toHaveBeenCalled();
    expect(state.missedBeats).toBe(0);
    beats.clearTimers(state);

    conn.ping.mockImplementation(() => Promise.resolve({ runningProcesses: 1 } as AgentPingResult));
    state.lastActivity = null;
    beats.startHeartbeat(state);
    await vi.advanceTimersByTimeAsync(100);
    expect(state.lastActivity).not.toBeNull();
    beats.clearTimers(state);
  });
});
