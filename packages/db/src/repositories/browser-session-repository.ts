import type { Database } from "../create-database";

/** A signed-in browser as stored (the cookie's secret itself lives only in the browser; its hash here). */
export interface BrowserSessionRecord {
  id: string;
  userId: string;
  /** The API token signed in with: revoking it ends this session too. */
  tokenId: string | null;
  userAgent: string;
  createdAt: Date;
  expiresAt: Date;
  lastUsedAt: Date | null;
  revokedAt: Date | null;
}

const FIELDS = { id: true, userId: true, tokenId: true, userAgent: true, createdAt: true, expiresAt: true, lastUsedAt: true, revokedAt: true } as const;

/** Browser sessions: what the web app's sign-in mints from a token. */
export class BrowserSessionRepository {
  constructor(private readonly db: Database) {}

  create(session: { id: string; userId: string; tokenId: string; secretHash: string; userAgent: string; expiresAt: Date }): Promise<BrowserSessionRecord> {
    return this.db.browserSession.create({ data: session, select: FIELDS });
  }

  findBySecretHash(secretHash: string): Promise<BrowserSessionRecord | null> {
    return this.db.browserSession.findUnique({ where: { secretHash }, select: FIELDS });
  }

  get(id: string): Promise<BrowserSessionRecord | null> {
    return this.db.browserSession.findUnique({ where: { id }, select: FIELDS });
  }

  /** Newest first, at most `limit`; `userId` keeps one user's. */
  list(filter: { userId?: string; limit: number }): Promise<BrowserSessionRecord[]> {
    return this.db.browserSession.findMany({ where: filter.userId ? { userId: filter.userId } : {}, orderBy: { createdAt: "desc" }, take: filter.limit, select: FIELDS });
  }

  async touch(id: string): Promise<void> {
    await this.db.browserSession.update({ where: { id }, data: { lastUsedAt: new Date() } });
  }

  revoke(id: string): Promise<BrowserSessionRecord> {
    return this.db.browserSession.update({ where: { id }, data: { revokedAt: new Date() }, select: FIELDS });
  }
}
