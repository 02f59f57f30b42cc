import type { Repositories } from "@berth/db";
import type { SandboxInfo } from "@berth/protocol";
import { afterEach, describe, expect, it, vi } from "vitest";
import { SessionLeases } from "./session-leases";

afterEach(() => vi.useRealTimers());

const noDriver = { list: () => [], detach: () => Promise.resolve() };

describe("SessionLeases", () => {
  it("renews all of its sessions in one call every lease/3, each to now + the lease", async () => {
    vi.useFakeTimers({ now: Date.UTC(2026, 11, 1, 12) });
    const renewals: [string, number][] = [];
    const leases = new SessionLeases({
      leases: { renewAll: (runnerId: string, until: Date) => (renewals.push([runnerId, until.getTime()]), Promise.resolve(3)), heldElsewhere: () => Promise.resolve([]) } as unknown as Repositories["leases"],
      driver: noDriver,
      log: () => undefined,
      runnerId: "r1",
      leaseMs: 6_000,
      onError: () => undefined,
    });
    leases.start();
    await vi.advanceTimersByTimeAsync(1_999);
    expect(renewals).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    await vi.advanceTimersByTimeAsync(4_000);
    const t0 = Date.UTC(2026, 11, 1, 12);
    expect(renewals).toEqual([
      ["r1", t0 + 2_000 + 6_000],
      ["r1", t0 + 4_000 + 6_000],
      ["r1", t0 + 6_000 + 6_000],
    ]);
    leases.stop();
    await vi.advanceTimersByTimeAsync(10_000);
    expect(renewals).toHaveLength(3);
  });

  it("reports a renewal that failed and keeps renewing", async () => {
    vi.useFakeTimers();
    const errors: unknown[] = [];
    let calls = 0;
    const leases = new SessionLeases({
      leases: { renewAll: () => (++calls === 1 ? Promise.reject(new Error("database gone")) : Promise.resolve(1)), heldElsewhere: () => Promise.resolve([]) } as unknown as Repositories["leases"],
      driver: noDriver,
      log: () => undefined,
      runnerId: "r1",
      leaseMs: 3_000,
      onError: (error) => errors.push(error),
    });
    leases.start();
    await vi.advanceTimersByTimeAsync(2_000);
    expect(calls).toBe(2);
    expect(errors.map((e) => (e as Error).message)).toEqual(["database gone"]);
    leases.stop();
  });

  it("lets go of a session attached here that another runner took while this one could not renew, and of no other", async () => {
    const order: string[] = [];
    const detached: string[] = [];
    const attached = (sessionId: string, status: string) => ({ sessionId, status }) as SandboxInfo;
    const leases = new SessionLeases({
      leases: {
        renewAll: () => (order.push("renew"), Promise.resolve(2)),
        heldElsewhere: (ids: string[], runnerId: string) => (order.push(`ask ${ids.join(",")} not ${runnerId}`), Promise.resolve(ids.filter((id) => id === "s_taken"))),
      } as unknown as Repositories["leases"],
      driver: {
        list: () => (order.push("list"), [attached("s_mine", "ready"), attached("s_taken", "ready"), attached("s_stopped", "terminated")]),
        detach: (sessionId) => (detached.push(sessionId), Promise.resolve()),
      },
      runnerId: "r1",
      leaseMs: 3_000,
      onError: () => undefined,
      log: () => undefined,
    });
    expect(await leases.renew()).toBe(2);
    // What was attached is read before the UPDATE: a session created or taken over after it is never let go of.
    expect(order).toEqual(["list", "renew", "ask s_mine,s_taken not r1"]);
    expect(detached).toEqual(["s_taken"]);
  });
});
