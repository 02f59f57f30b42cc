import type { LeasedSession, Repositories } from "@berth/db";
import type { AdoptOutcome } from "@berth/sandbox";
import { describe, expect, it } from "vitest";
import { Failover, type TakeOverOutcome } from "./failover";
import { SessionLeases } from "./session-leases";

type LeaseRepo = Repositories["leases"];

/** The lease table in memory, with the compare-and-set the database does (packages/db tests it on SQLite). */
class MemoryLeases implements Pick<LeaseRepo, "lapsed" | "takeOver" | "renewAll" | "heldElsewhere"> {
  readonly rows = new Map<string, LeasedSession>();

  add(row: Partial<LeasedSession> & { sessionId: string }): void {
    this.rows.set(row.sessionId, { runnerId: null, expiresAt: null, status: "ready", volumeName: `vol-${row.sessionId}`, ...row });
  }

  lapsed(now: Date, exceptRunnerId: string): Promise<LeasedSession[]> {
    const lapsed = [...this.rows.values()].filter(
      (r) => r.status !== "deleted" && (r.runnerId === null || (r.runnerId !== exceptRunnerId && (r.expiresAt === null || r.expiresAt < now))),
    );
    return Promise.resolve(lapsed.map((r) => ({ ...r })));
  }

  takeOver(sessionId: string, claim: { from: string | null; to: string; now: Date; expiresAt: Date }): Promise<boolean> {
    const row = this.rows.get(sessionId);
    const lapsed = row && (row.expiresAt === null || row.expiresAt < claim.now);
    if (!row || row.status === "deleted" || row.runnerId !== claim.from || !lapsed) return Promise.resolve(false);
    row.runnerId = claim.to;
    row.expiresAt = claim.expiresAt;
    return Promise.resolve(true);
  }

  heldElsewhere(sessionIds: string[], runnerId: string): Promise<string[]> {
    return Promise.resolve(sessionIds.filter((id) => { const holder = this.rows.get(id)?.runnerId; return holder != null && holder !== runnerId; }));
  }

  renewAll(runnerId: string, expiresAt: Date): Promise<number> {
    const held = [...this.rows.values()].filter((row) => row.runnerId === runnerId && row.status !== "deleted");
    for (const row of held) row.expiresAt = expiresAt;
    return Promise.resolve(held.length);
  }
}

const LEASE_MS = 5_000;
const T0 = Date.UTC(2026, 11, 1, 12);

function runner(
  id: string,
  table: MemoryLeases,
  clock: { now: number },
  found: Record<string, AdoptOutcome> = {},
  probe: { holderAnswers?: (runnerId: string) => Promise<boolean> } = {},
) {
  const leases = new SessionLeases({
    leases: table as unknown as LeaseRepo,
    driver: { list: () => [], detach: () => Promise.resolve() },
    runnerId: id,
    leaseMs: LEASE_MS,
    now: () => clock.now,
    onError: () => undefined,
    log: () => undefined,
  });
  const seen = { adopted: [] as string[], settled: [] as [string, TakeOverOutcome][], recovered: [] as [string, string | null][] };
  const failover = new Failover({
    leases,
    repo: table as unknown as LeaseRepo,
    driver: {
      adopt: async (sessionId, from) => {
        seen.adopted.push(`${sessionId}<-${from.fromRunnerId}:${from.volumeName ?? ""}`);
        await new Promise((resolve) => setTimeout(resolve, 5));
        return found[sessionId] ?? "adopted";
      },
    },
    settle: (sessionId, outcome) => {
      seen.settled.push([sessionId, outcome]);
      return Promise.resolve();
    },
    recover: (sessionId, from) => {
      seen.recovered.push([sessionId, from]);
      return Promise.resolve();
    },
    log: () => undefined,
    ...probe,
  });
  return { leases, failover, seen };
}

describe("Failover", () => {
  it("takes over only sessions whose lease lapsed (and unowned rows), adopting running ones from their old holder", async () => {
    const table = new MemoryLeases();
    const clock = { now: T0 };
    table.add({ sessionId: "s_dead", runnerId: "a", expiresAt: new Date(T0 - 1) });
    table.add({ sessionId: "s_live", runnerId: "a", expiresAt: new Date(T0 + 3_000) });
    table.add({ sessionId: "s_stopped", runnerId: "a", expiresAt: new Date(T0 - 1), status: "stopped" });
    table.add({ sessionId: "s_gone", runnerId: "a", expiresAt: new Date(T0 - 1) });
    table.add({ sessionId: "s_legacy" });
    table.add({ sessionId: "s_deleted", runnerId: "a", expiresAt: new Date(T0 - 1), status: "deleted" });
    const b = runner("b", table, clock, { s_gone: "missing" });

    const taken = await b.failover.sweep();
    expect(taken.map((t) => [t.sessionId, t.fromRunnerId, t.outcome]).sort()).toEqual([
      ["s_dead", "a", "adopted"],
      ["s_gone", "a", "missing"],
      ["s_legacy", null, "adopted"],
      ["s_stopped", "a", "not_running"],
    ]);
    expect(b.seen.adopted.sort()).toEqual(["s_dead<-a:vol-s_dead", "s_gone<-a:vol-s_gone", "s_legacy<-:vol-s_legacy"]);
    expect(b.seen.settled).toContainEqual(["s_gone", "missing"]);
    // Every session taken has what its old holder left in flight ended, even one whose container is gone.
    expect(b.seen.recovered.map(([id]) => id).sort()).toEqual(["s_dead", "s_gone", "s_legacy", "s_stopped"]);
    // Held by b now, until now + the lease; the live one is still a's.
    expect(table.rows.get("s_dead")).toMatchObject({ runnerId: "b", expiresAt: new Date(T0 + LEASE_MS) });
    expect(table.rows.get("s_live")?.runnerId).toBe("a");
    expect(await b.failover.sweep()).toEqual([]);
  });

  it("gives each lapsed session to exactly one of two runners sweeping at once", async () => {
    const table = new MemoryLeases();
    const clock = { now: T0 };
    for (let i = 0; i < 20; i++) table.add({ sessionId: `s${i}`, runnerId: "dead", expiresAt: new Date(T0 - 10) });
    const b = runner("b", table, clock);
    const c = runner("c", table, clock);
    const [byB, byC] = await Promise.all([b.failover.sweep(), c.failover.sweep()]);
    const all = [...byB, ...byC].map((t) => t.sessionId).sort();
    expect(all).toEqual([...table.rows.keys()].sort());
    expect(new Set(all).size).toBe(20);
    expect(b.seen.adopted.length + c.seen.adopted.length).toBe(20);
    for (const row of table.rows.values()) expect(["b", "c"]).toContain(row.runnerId);
  });

  it("never takes from a holder that renews: a lease lapses only after a whole lease without renewal", async () => {
    const table = new MemoryLeases();
    const clock = { now: T0 };
    table.add({ sessionId: "s1", runnerId: "a", expiresAt: new Date(T0 + LEASE_MS) });
    const a = runner("a", table, clock);
    const b = runner("b", table, clock);
    for (let step = 0; step < 6; step++) {
      clock.now += Math.floor(LEASE_MS / 3);
      await a.leases.renew();
      expect(await b.failover.sweep()).toEqual([]);
    }
    // a stops renewing (killed): b takes the session once the lease has run out, not before.
    clock.now += LEASE_MS - 1;
    expect(await b.failover.sweep()).toEqual([]);
    clock.now += 2;
    expect((await b.failover.sweep()).map((t) => t.sessionId)).toEqual(["s1"]);
  });

  it("leaves a late holder that still accepts connections its sessions for twice the lease, then takes them", async () => {
    const table = new MemoryLeases();
    const clock = { now: T0 };
    table.add({ sessionId: "s_busy", runnerId: "busy", expiresAt: new Date(T0 - 1) });
    table.add({ sessionId: "s_killed", runnerId: "killed", expiresAt: new Date(T0 - 1) });
    const probed: string[] = [];
    const b = runner("b", table, clock, {}, {
      holderAnswers: (holder) => {
        probed.push(holder);
        return Promise.resolve(holder === "busy");
      },
    });

    // A killed holder's port refuses: its session is taken at once; the busy one's answers: left to it.
    expect((await b.failover.sweep()).map((t) => t.sessionId)).toEqual(["s_killed"]);
    expect(table.rows.get("s_busy")?.runnerId).toBe("busy");
    expect(probed.sort()).toEqual(["busy", "killed"]);

    // The busy holder renews in time: nothing changes hands.
    clock.now += LEASE_MS;
    table.rows.get("s_busy")!.expiresAt = new Date(clock.now + LEASE_MS);
    expect(await b.failover.sweep()).toEqual([]);

    // It stops renewing but keeps answering: taken once the lease is twice its length overdue, not before.
    clock.now += LEASE_MS + 2 * LEASE_MS - 1;
    expect(await b.failover.sweep()).toEqual([]);
    clock.now += 2;
    expect((await b.failover.sweep()).map((t) => [t.sessionId, t.fromRunnerId])).toEqual([["s_busy", "busy"]]);
  });

  it("takes a lapsed lease when probing its holder fails", async () => {
    const table = new MemoryLeases();
    table.add({ sessionId: "s1", runnerId: "a", expiresAt: new Date(T0 - 1) });
    const b = runner("b", table, { now: T0 }, {}, { holderAnswers: () => Promise.reject(new Error("database down")) });
    expect((await b.failover.sweep()).map((t) => t.sessionId)).toEqual(["s1"]);
  });

  it("runs one sweep at a time: a sweep asked for during another is that one", async () => {
    const table = new MemoryLeases();
    table.add({ sessionId: "s1", runnerId: "a", expiresAt: new Date(T0 - 1) });
    const b = runner("b", table, { now: T0 });
    const first = b.failover.sweep();
    const second = b.failover.sweep();
    expect(second).toBe(first);
    expect((await first).length).toBe(1);
    expect(b.seen.adopted).toHaveLength(1);
  });
});
