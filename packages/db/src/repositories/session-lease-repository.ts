import type { Database } from "../create-database";

/** Who holds a session's sandbox, and until when. */
export interface SessionLease {
  sessionId: string;
  /** Null on rows from before several runners: any runner may claim them. */
  runnerId: string | null;
  expiresAt: Date | null;
}

/** A session's lease with where its holder is reached: the holder's Runner row URL, null when it has no row. */
export interface HeldLease extends SessionLease {
  holderUrl: string | null;
}

/** A live session as reconcile and failover see it. */
export interface LeasedSession extends SessionLease {
  status: string;
  volumeName: string | null;
}

const LIVE = { status: { not: "deleted" } } as const;

const LEASED = { id: true, ownerRunnerId: true, leaseExpiresAt: true, status: true, volumeName: true } as const;

function toLeased(row: { id: string; ownerRunnerId: string | null; leaseExpiresAt: Date | null; status: string; volumeName: string | null }): LeasedSession {
  return { sessionId: row.id, runnerId: row.ownerRunnerId, expiresAt: row.leaseExpiresAt, status: row.status, volumeName: row.volumeName };
}

/** A lease that lapsed (or was never taken) as of `now`: another runner may claim it. */
function lapsed(now: Date) {
  return { OR: [{ leaseExpiresAt: null }, { leaseExpiresAt: { lt: now } }] };
}

/**
 * Session ownership between runners (docs/scale-out.md): the row says which runner is attached to the container.
 * Every change of owner is a compare-and-set on the row, so two runners never both win a session.
 */
export class SessionLeaseRepository {
  constructor(private readonly db: Database) {}

  /** Null for a session that does not exist or is deleted. */
  async of(sessionId: string): Promise<SessionLease | null> {
    const row = await this.db.session.findFirst({ where: { id: sessionId, ...LIVE }, select: { id: true, ownerRunnerId: true, leaseExpiresAt: true } });
    return row ? { sessionId: row.id, runnerId: row.ownerRunnerId, expiresAt: row.leaseExpiresAt } : null;
  }

  /**
   * The lease joined to its holder's Runner row, in one query (the forwarding decision's lookup on a cache miss);
   * null for a session that does not exist or is deleted. Session has no relation to Runner in the schema (a
   * lease may name a runner that never registered), so this is one raw LEFT JOIN that SQLite and PostgreSQL both run.
   */
  async withHolder(sessionId: string): Promise<HeldLease | null> {
    // Both engines give the DATETIME / TIMESTAMP(3) column back as a Date, as Prisma's own reads do.
    const rows = await this.db.$queryRaw<{ runnerId: string | null; expiresAt: Date | null; holderUrl: string | null }[]>`
      SELECT s."ownerRunnerId" AS "runnerId", s."leaseExpiresAt" AS "expiresAt", r."url" AS "holderUrl"
      FROM "Session" s LEFT JOIN "Runner" r ON r."id" = s."ownerRunnerId"
      WHERE s."id" = ${sessionId} AND s."status" <> 'deleted'`;
    const row = rows[0];
    return row ? { sessionId, ...row } : null;
  }

  /** Extends every live session `runnerId` holds to `expiresAt`, in one UPDATE; the count renewed. */
  async renewAll(runnerId: string, expiresAt: Date): Promise<number> {
    const { count } = await this.db.session.updateMany({ where: { ownerRunnerId: runnerId, ...LIVE }, data: { leaseExpiresAt: expiresAt } });
    return count;
  }

  /**
   * Takes the session from `from` (its owner as last read; null for an unowned row) when that lease has lapsed
   * by `now`. False when someone else changed the row first: an owner that renewed, or another runner that won.
   */
  async takeOver(sessionId: string, claim: { from: string | null; to: string; now: Date; expiresAt: Date }): Promise<boolean> {
    const { count } = await this.db.session.updateMany({
      where: { id: sessionId, ...LIVE, ownerRunnerId: claim.from, ...lapsed(claim.now) },
      data: { ownerRunnerId: claim.to, leaseExpiresAt: claim.expiresAt },
    });
    return count > 0;
  }

  /** Live sessions whose lease lapsed by `now` and that `exceptRunnerId` does not hold, or that nobody holds: what failover may claim. */
  async lapsed(now: Date, exceptRunnerId: string): Promise<LeasedSession[]> {
    const rows = await this.db.session.findMany({
      // `not` leaves NULL out, as SQL does: unowned rows are asked for on their own.
      where: { ...LIVE, OR: [{ ownerRunnerId: null }, { ownerRunnerId: { not: exceptRunnerId }, ...lapsed(now) }] },
      select: LEASED,
    });
    return rows.map(toLeased);
  }

  /** Every live session with its holder: reconcile adopts its own and keeps the others' workspaces. */
  async live(): Promise<LeasedSession[]> {
    return (await this.db.session.findMany({ where: LIVE, select: LEASED })).map(toLeased);
  }

  /** Which of `sessionIds` another runner holds now (this runner's lease on them lapsed and was taken). */
  async heldElsewhere(sessionIds: string[], runnerId: string): Promise<string[]> {
    if (sessionIds.length === 0) return [];
    const rows = await this.db.session.findMany({ where: { id: { in: sessionIds }, ownerRunnerId: { not: runnerId } }, select: { id: true } });
    return rows.map((row) => row.id);
  }

  /**
   * Sessions of any status (deleted ones too) that `runnerId` holds or nobody holds: whose leftover runs a runner
   * starting again ends itself (recovery at start); the rest are their holders' to end.
   */
  async recoverableBy(runnerId: string): Promise<string[]> {
    const rows = await this.db.session.findMany({ where: { OR: [{ ownerRunnerId: runnerId }, { ownerRunnerId: null }] }, select: { id: true } });
    return rows.map((row) => row.id);
  }
}
