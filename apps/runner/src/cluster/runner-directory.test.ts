import type { Repositories, RunnerRecord, SessionLease } from "@berth/db";
import { describe, expect, it } from "vitest";
import { RunnerDirectory } from "./runner-directory";

const T0 = Date.UTC(2026, 11, 1, 12);

function directory(leases: Record<string, SessionLease>, runners: Record<string, string>, clock = { now: T0 }) {
  const reads = { runners: 0 };
  const repos = {
    leases: { of: (id: string) => Promise.resolve(leases[id] ?? null) },
    runners: {
      get: (id: string) => {
        reads.runners++;
        const url = runners[id];
        return Promise.resolve(url ? ({ id, url, startedAt: new Date(T0), heartbeatAt: new Date(T0) } satisfies RunnerRecord) : null);
      },
    },
  } as unknown as Pick<Repositories, "runners" | "leases">;
  return { dir: new RunnerDirectory({ repos, runnerId: "me", heartbeatMs: 1_000, now: () => clock.now, onError: () => undefined }), reads, clock };
}

describe("RunnerDirectory.ownerOf", () => {
  it("names the other runner holding a live lease and where it is reached", async () => {
    const runners: Record<string, string> = { b: "http://10.0.0.2:4000" };
    const { dir, reads } = directory({ s1: { sessionId: "s1", runnerId: "b", expiresAt: new Date(T0 + 5_000) } }, runners);
    expect(await dir.ownerOf("s1")).toEqual({ runnerId: "b", url: "http://10.0.0.2:4000" });
    // A runner restarted on another port is found at its new URL at once.
    runners.b = "http://10.0.0.2:4100";
    expect(await dir.ownerOf("s1")).toEqual({ runnerId: "b", url: "http://10.0.0.2:4100" });
    expect(reads.runners).toBe(2);
  });

  it("is null for a session held here, unheld, lapsed, unknown, or held by a runner with no row", async () => {
    const { dir } = directory(
      {
        mine: { sessionId: "mine", runnerId: "me", expiresAt: new Date(T0 + 5_000) },
        legacy: { sessionId: "legacy", runnerId: null, expiresAt: null },
        lapsed: { sessionId: "lapsed", runnerId: "b", expiresAt: new Date(T0 - 1) },
        ghost: { sessionId: "ghost", runnerId: "z", expiresAt: new Date(T0 + 5_000) },
      },
      { b: "http://10.0.0.2:4000" },
    );
    for (const id of ["mine", "legacy", "lapsed", "ghost", "nope"]) expect(await dir.ownerOf(id)).toBeNull();
  });
});
