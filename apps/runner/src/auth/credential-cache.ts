import { InvalidatingCache } from "./invalidating-cache";
import type { InvalidationBus } from "./invalidation-bus";
import type { Principal } from "./tokens";

const LAST_USED_RESOLUTION_MS = 60_000;
/** How long a resolved credential is trusted without the database when nothing invalidated it. */
const CACHE_TTL_MS = 30_000;
const CACHE_MAX_ENTRIES = 10_000;

type Entry = { principal: Principal; touchedAt: number };

/** What a credential resolves to in the database: who, when it was last used, and until when it holds. */
export interface ResolvedCredential {
  principal: Principal;
  lastUsedAt: Date | null;
  expiresAt?: Date;
}

/**
 * Resolved credentials (API tokens, browser sign-ins) by their secret's hash: every request presents one, and
 * resolving it was one to three queries. A revocation publishes on the bus (credential-revocation.ts): the
 * credential's entry, a sign-in minted with it, or every entry of a user is dropped before the revoking request
 * returns. Only valid credentials are kept, so a wrong guess costs a query every time and takes no room.
 */
export class CredentialCache {
  private readonly cache = new InvalidatingCache<Entry>({ ttlMs: CACHE_TTL_MS, maxEntries: CACHE_MAX_ENTRIES });

  constructor(
    private readonly opts: {
      invalidation: InvalidationBus;
      /** Records a use for the admin's lists; called at most once a minute per credential, not awaited. */
      touch: (credentialId: string) => Promise<void>;
    },
  ) {
    opts.invalidation.subscribe((event) => {
      if (event.kind === "credential") this.cache.deleteWhere(({ principal }) => principal.tokenId === event.id || principal.mintedWith === event.id);
      else if (event.kind === "user") this.cache.deleteWhere(({ principal }) => principal.userId === event.id);
    });
  }

  /** The principal for `hash` if memory holds it (a use, like `principal`); undefined when only `resolve` can tell. */
  cached(hash: string): Principal | undefined {
    const cached = this.cache.get(hash);
    if (!cached) return undefined;
    this.touch(cached);
    return cached.principal;
  }

  /** The principal for `hash`: from memory, or from `resolve` (null: refused, and not kept). */
  async principal(hash: string, resolve: () => Promise<ResolvedCredential | null>): Promise<Principal | null> {
    const cached = this.cached(hash);
    if (cached) return cached;
    const epoch = this.cache.epoch;
    const resolved = await resolve();
    if (!resolved) return null;
    const entry = { principal: resolved.principal, touchedAt: resolved.lastUsedAt?.getTime() ?? 0 };
    this.touch(entry);
    this.cache.set(hash, entry, epoch, resolved.expiresAt?.getTime());
    return entry.principal;
  }

  private touch(entry: Entry): void {
    if (Date.now() - entry.touchedAt <= LAST_USED_RESOLUTION_MS) return;
    entry.touchedAt = Date.now();
    this.opts.touch(entry.principal.tokenId).catch(() => undefined);
  }
}
