import { describe, expect, it } from "vitest";
import { seedSessions, useTestRepositories } from "./testing/open-test-repositories";

const t = useTestRepositories(async (repos) => {
  await seedSessions(repos, { ses_a: "user_a", ses_b: "user_a", ses_old: "user_a", ses_gone: "user_a" });
});

const at = (ms: number) => new Date(Date.UTC(2026, 11, 1, 12, 0, 0) + ms);

async function hold(sessionId: string, runnerId: string | null, expiresAt: Date | null): Promise<void> {
  await t.db.session.update({ where: { id: sessionId }, data: { ownerRunnerId: runnerId, leaseExpiresAt: expiresAt } });
}

describe("SessionLeaseRepository", () => {
  it("reads a lease with its holder's URL in one query: null URL for a holder with no row, null for a deleted or unknown session", async () => {
    await t.repos.sessions.create({ id: "ses_held", name: "h", ownerId: "user_a", autonomy: "default", network: "none", env: {}, ownerRunnerId: "r_row", leaseExpiresAt: at(5_000) });
    await t.repos.sessions.create({ id: "ses_ghost", name: "g", ownerId: "user_a", autonomy: "default", network: "none", env: {}, ownerRunnerId: "r_none", leaseExpiresAt: at(5_000) });
    await t.repos.sessions.create({ id: "ses_ended", name: "e", ownerId: "user_a", autonomy: "default", network: "none", env: {}, ownerRunnerId: "r_row", leaseExpiresAt: at(5_000) });
    await t.repos.sessions.markEnded("ses_ended", "deleted", "deleted");
    await t.repos.runners.register({ id: "r_row", url: "http://10.0.0.2:4000", at: at(0) });
    expect(await t.repos.leases.withHolder("ses_held")).toEqual({ sessionId: "ses_held", runnerId: "r_row", expiresAt: at(5_000), holderUrl: "http://10.0.0.2:4000" });
    expect(await t.repos.leases.withHolder("ses_ghost")).toEqual({ sessionId: "ses_ghost", runnerId: "r_none", expiresAt: at(5_000), holderUrl: null });
    expect(await t.repos.leases.withHolder("ses_ended")).toBeNull();
    expect(await t.repos.leases.withHolder("ses_unknown")).toBeNull();
    // The other tests here count every session and runner row.
    await t.db.session.deleteMany({ where: { id: { in: ["ses_held", "ses_ghost", "ses_ended"] } } });
    await t.db.runner.delete({ where: { id: "r_row" } });
  });

  it("creates a session held by the runner that made it", async () => {
    await t.repos.sessions.create({ id: "ses_new", name: "n", ownerId: "user_a", autonomy: "default", network: "none", env: {}, ownerRunnerId: "r1", leaseExpiresAt: at(15_000) });
    expect(await t.repos.leases.of("ses_new")).toEqual({ sessionId: "ses_new", runnerId: "r1", expiresAt: at(15_000) });
    expect(await t.repos.leases.of("ses_none")).toBeNull();
  });

  it("renews every live session of one runner in one call, and no one else's", async () => {
    await hold("ses_a", "r1", at(0));
    await hold("ses_b", "r2", at(0));
    await hold("ses_gone", "r1", at(0));
    await t.repos.sessions.markEnded("ses_gone", "deleted", "deleted");
    expect(await t.repos.leases.renewAll("r1", at(30_000))).toBe(2); // ses_a and ses_new
    expect((await t.repos.leases.of("ses_a"))?.expiresAt).toEqual(at(30_000));
    expect((await t.repos.leases.of("ses_b"))?.expiresAt).toEqual(at(0));
    expect(await t.repos.leases.of("ses_gone")).toBeNull();
  });

  it("lets exactly one runner take a lapsed session, and none take a live one", async () => {
    await hold("ses_a", "r1", at(10_000));
    const early = { from: "r1", now: at(5_000), expiresAt: at(20_000) };
    expect(await t.repos.leases.takeOver("ses_a", { ...early, to: "r2" })).toBe(false);

    const late = { from: "r1", now: at(11_000), expiresAt: at(26_000) };
    const wins = await Promise.all(["r2", "r3", "r4"].map((to) => t.repos.leases.takeOver("ses_a", { ...late, to })));
    expect(wins.filter(Boolean)).toHaveLength(1);
    const winner = ["r2", "r3", "r4"][wins.indexOf(true)];
    expect(await t.repos.leases.of("ses_a")).toEqual({ sessionId: "ses_a", runnerId: winner, expiresAt: at(26_000) });
  });

  it("refuses a take-over from an owner other than the one read (someone changed the row first)", async () => {
    await hold("ses_b", "r2", at(0));
    expect(await t.repos.leases.takeOver("ses_b", { from: "r9", to: "r3", now: at(1_000), expiresAt: at(16_000) })).toBe(false);
    expect((await t.repos.leases.of("ses_b"))?.runnerId).toBe("r2");
  });

  it("lists what failover may claim: lapsed leases of other runners and unowned rows, never its own", async () => {
    await hold("ses_a", "r1", at(0));
    await hold("ses_b", "r2", at(60_000));
    await hold("ses_old", null, null);
    await hold("ses_new", "r3", at(0));
    const claimable = await t.repos.leases.lapsed(at(1_000), "r3");
    expect(claimable.map((s) => s.sessionId).sort()).toEqual(["ses_a", "ses_old"]);
    expect(claimable.find((s) => s.sessionId === "ses_a")).toMatchObject({ runnerId: "r1", status: "starting", volumeName: null });
    expect(await t.repos.leases.takeOver("ses_old", { from: null, to: "r3", now: at(1_000), expiresAt: at(16_000) })).toBe(true);
  });

  it("lists every live session with its holder, and what a runner starting again recovers itself", async () => {
    expect((await t.repos.leases.live()).map((s) => s.sessionId).sort()).toEqual(["ses_a", "ses_b", "ses_new", "ses_old"]);
    // ses_gone (deleted) is still r1's to recover; ses_old was claimed by r3 above.
    expect((await t.repos.leases.recoverableBy("r1")).sort()).toEqual(["ses_a", "ses_gone"]);
    // Of the sessions r1 has attached, which another runner holds now (an unowned row is nobody's).
    expect((await t.repos.leases.heldElsewhere(["ses_a", "ses_b", "ses_old", "ses_none"], "r1")).sort()).toEqual(["ses_b", "ses_old"]);
    expect(await t.repos.leases.heldElsewhere([], "r1")).toEqual([]);
  });
});

describe("RunnerRepository", () => {
  it("registers a runner, beats its heart, and takes the row over on a restart under the same id", async () => {
    await t.repos.runners.register({ id: "r1", url: "http://127.0.0.1:4001", at: at(0) });
    expect(await t.repos.runners.heartbeat("r1", at(5_000))).toBe(true);
    expect(await t.repos.runners.get("r1")).toEqual({ id: "r1", url: "http://127.0.0.1:4001", startedAt: at(0), heartbeatAt: at(5_000) });
    await t.repos.runners.register({ id: "r1", url: "http://127.0.0.1:4011", at: at(9_000) });
    expect(await t.repos.runners.get("r1")).toMatchObject({ url: "http://127.0.0.1:4011", startedAt: at(9_000) });
    expect(await t.repos.runners.heartbeat("r_none", at(9_000))).toBe(false);
    expect((await t.repos.runners.list()).map((r) => r.id)).toEqual(["r1"]);
  });
});
