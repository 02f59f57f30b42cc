import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { AgentPingResult } from "@berth/protocol";
import type { AgentConnection } from "../agent-connection";
import { Liveness, MISSED_BEATS_LIMIT } from "./liveness";
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

describe("Liveness", () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it("stops an idle sandbox once the timeout passes with nothing in flight, and waits while a call runs", () => {
    const onIdle = vi.fn();
    const liveness = new Liveness({
      idleTimeoutMs: 1_000,
      heartbeatIntervalMs: 0,
      heartbeatTimeoutMs: 100,
      onIdle,
      onUnresponsive: vi.fn(),
      warn: vi.fn(),
    });
    const state = readyState(fakeConnection(() => Promise.resolve({ runningProcesses: 0 } as AgentPingResult)));
    state.inFlight = 1;
    liveness.markActive(state);
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
    const liveness = new Liveness({
      idleTimeoutMs: 0,
      heartbeatIntervalMs: 100,
      heartbeatTimeoutMs: 50,
      onIdle: vi.fn(),
      onUnresponsive,
      warn,
    });
    const state = readyState(conn);
    liveness.startHeartbeat(state);
    for (let i = 0; i < MISSED_BEATS_LIMIT; i++) await vi.advanceTimersByTimeAsync(100);
    expect(warn).toHaveBeenCalledTimes(MISSED_BEATS_LIMIT);
    expect(warn.mock.calls[0]![1]).toMatch(/heartbeat missed \(1\/3\): ping timed out/);
    expect(onUnresponsive).toHaveBeenCalledWith(state);
    liveness.clearTimers(state);
    expect(state.heartbeatTimer).toBeNull();
  });

  it("counts output that arrived after the ping as a beat, and a running background process as activity", async () => {
    const onUnresponsive = vi.fn();
    const conn = fakeConnection(() => Promise.reject(new Error("late")));
    const liveness = new Liveness({
      idleTimeoutMs: 0,
      heartbeatIntervalMs: 100,
      heartbeatTimeoutMs: 50,
      onIdle: vi.fn(),
      onUnresponsive,
      warn: vi.fn(),
    });
    const state = readyState(conn);
    conn.lastDataAt = Number.MAX_SAFE_INTEGER; // megabytes of output ahead of the pong
    liveness.startHeartbeat(state);
    for (let i = 0; i < MISSED_BEATS_LIMIT + 1; i++) await vi.advanceTimersByTimeAsync(100);
    expect(onUnresponsive).not.toHaveBeenCalled();
    expect(state.missedBeats).toBe(0);
    liveness.clearTimers(state);

    conn.ping.mockImplementation(() => Promise.resolve({ runningProcesses: 1 } as AgentPingResult));
    state.lastActivity = null;
    liveness.startHeartbeat(state);
    await vi.advanceTimersByTimeAsync(100);
    expect(state.lastActivity).not.toBeNull();
    liveness.clearTimers(state);
  });
});
