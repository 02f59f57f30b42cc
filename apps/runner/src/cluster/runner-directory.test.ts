import type { Repositories } from "@berth/db";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openTestRepos } from "../testing/open-test-repos";
import { RunnerDirectory } from "./runner-directory";

// Real repositories with the real migrations: SQLite, or PostgreSQL with BERTH_TEST_POSTGRES_URL set (the lease
// and its holder's row come from one query that both engines run).
const T0 = Date.UTC(2026, 11, 1, 12);
let repos: Repositories;
let close = async () => undefined as void;

beforeAll(async () => {
  ({ repos, close } = await openTestRepos("berth-directory-"));
  await repos.users.create({ id: "user_a", name: "a", role: "developer" });
}, 60_000);

afterAll(() => close());

/** A session held by `runnerId` until `expiresAt` (both null: a row from before several runners). */
async function session(id: string, runnerId: string | null, expiresAt: number | null): Promise<void> {
  const lease = runnerId === null || expiresAt === null ? {} : { ownerRunnerId: runnerId, leaseExpiresAt: new Date(expiresAt) };
  await repos.sessions.create({ id, name: id, ownerId: "user_a", autonomy: "default", network: "none", env: {}, ...lease });
}

/** This runner ("me") at T0, its lookups counted: the repositories' one query, and no other read to make. */
function directory() {
  const reads = { lookups: 0 };
  const leases = { withHolder: (id: string) => (reads.lookups++, repos.leases.withHolder(id)) };
  const dir = new RunnerDirectory({ repos: { runners: {}, leases } as unknown as Pick<Repositories, "runners" | "leases">, runnerId: "me", heartbeatMs: 1_000, now: () => T0, onError: () => undefined });
  return { dir, reads };
}

describe("RunnerDirectory.ownerOf", () => {
  it("names the other runner holding a live lease and where it is reached", async () => {
    await session("s1", "b", T0 + 5_000);
    await repos.runners.register({ id: "b", url: "http://10.0.0.2:4000", at: new Date(T0) });
    const { dir, reads } = directory();
    expect(await dir.ownerOf("s1")).toEqual({ runnerId: "b", url: "http://10.0.0.2:4000" });
    // A runner restarted on another port is found at its new URL at once.
    await repos.runners.register({ id: "b", url: "http://10.0.0.2:4100", at: new Date(T0) });
    expect(await dir.ownerOf("s1")).toEqual({ runnerId: "b", url: "http://10.0.0.2:4100" });
    expect(reads.lookups).toBe(2);
  });

  it("is null for a session held here, unheld, lapsed, unknown, deleted, or held by a runner with no row", async () => {
    await repos.runners.register({ id: "me", url: "http://10.0.0.1:4000", at: new Date(T0) });
    await session("mine", "me", T0 + 5_000);
    await session("legacy", null, null);
    await session("lapsed", "b", T0 - 1);
    await session("ghost", "z", T0 + 5_000);
    await session("gone", "b", T0 + 5_000);
    await repos.sessions.markEnded("gone", "deleted", "deleted");
    const { dir, reads } = directory();
    for (const id of ["mine", "legacy", "lapsed", "ghost", "gone", "nope"]) expect(await dir.ownerOf(id)).toBeNull();
    // One query each, the holder's row included.
    expect(reads.lookups).toBe(6);
  });
});
