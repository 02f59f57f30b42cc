import type { UserRepository } from "@berth/db";
import { InvalidatingCache } from "./invalidating-cache";
import type { InvalidationBus } from "./invalidation-bus";
import { hashToken, type Principal } from "./tokens";

const LAST_USED_RESOLUTION_MS = 60_000;
/** How long a resolved token is trusted without asking the database again, when nothing invalidated it. */
const CACHE_TTL_MS = 30_000;
const CACHE_MAX_ENTRIES = 10_000;

/** Resolves a presented API token to its principal. */
export interface TokenAuthenticator {
  authenticate(token: string): Promise<Principal | null>;
}

/**
 * API tokens, resolved from the database once and then from memory: every request presents one, and the
 * lookup was a query per call. Revoking a token or disabling or removing its user publishes an invalidation
 * (credential-revocation.ts) that empties the entry before the revoking request returns. Only valid tokens
 * are kept, so a wrong guess costs a query every time and takes no room.
 */
export class ApiTokens implements TokenAuthenticator {
  private readonly cache = new InvalidatingCache<{ principal: Principal; touchedAt: number }>({ ttlMs: CACHE_TTL_MS, maxEntries: CACHE_MAX_ENTRIES });

  constructor(private readonly deps: { users: Pick<UserRepository, "findTokenByHash" | "touchToken">; invalidation: InvalidationBus }) {
    deps.invalidation.subscribe((event) => {
      if (event.kind === "credential") this.cache.deleteWhere((entry) => entry.principal.tokenId === event.id);
      else if (event.kind === "user") this.cache.deleteWhere((entry) => entry.principal.userId === event.id);
    });
  }

  async authenticate(token: string): Promise<Principal | null> {
    const hash = hashToken(token);
    const cached = this.cache.get(hash);
    if (cached) {
      this.touch(cached);
      return cached.principal;
    }
    const epoch = this.cache.epoch;
    const row = await this.deps.users.findTokenByHash(hash);
    // A disabled or deleted user's tokens are refused like revoked ones (users-routes.ts).
    if (!row || row.revokedAt || row.user.disabledAt || row.user.deletedAt) return null;
    // An unknown role reads as viewer (UserRepository).
    const entry = { principal: { userId: row.userId, name: row.user.name, role: row.user.role, tokenId: row.id, credential: "token" as const }, touchedAt: row.lastUsedAt?.getTime() ?? 0 };
    this.touch(entry);
    this.cache.set(hash, entry, epoch);
    return entry.principal;
  }

  /** For the admin's token list; at most one write a minute per token, off the request's path. */
  private touch(entry: { principal: Principal; touchedAt: number }): void {
    if (Date.now() - entry.touchedAt <= LAST_USED_RESOLUTION_MS) return;
    entry.touchedAt = Date.now();
    this.deps.users.touchToken(entry.principal.tokenId).catch(() => undefined);
  }
}
