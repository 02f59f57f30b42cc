import type { Repositories } from "@berth/db";
import { afterEach, describe, expect, it, vi } from "vitest";
import { SessionLeases } from "./session-leases";

afterEach(() => vi.useRealTimers());

describe("SessionLeases", () => {
  it("renews all of its sessions in one call every lease/3, each to now + the lease", async () => {
    vi.useFakeTimers({ now: Date.UTC(2026, 11, 1, 12) });
    const renewals: [string, number][] = [];
    const leases = new SessionLeases({
      leases: { renewAll: (runnerId: string, until: Date) => (renewals.push([runnerId, until.getTime()]), Promise.resolve(3)) } as unknown as Repositories["leases"],
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
      leases: { renewAll: () => (++calls === 1 ? Promise.reject(new Error("database gone")) : Promise.resolve(1)) } as unknown as Repositories["leases"],
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
});
