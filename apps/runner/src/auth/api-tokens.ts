import type { UserRepository } from "@berth/db";
import { CredentialCache } from "./credential-cache";
import type { InvalidationBus } from "./invalidation-bus";
import { hashToken, type Principal } from "./tokens";

/** Resolves a presented API token to its principal. */
export interface TokenAuthenticator {
  authenticate(token: string): Promise<Principal | null>;
  /** The token's principal when it is known without a lookup; undefined when `authenticate` must ask. */
  cached?(token: string): Principal | undefined;
}

/**
 * API tokens, resolved from the database once and then from memory (credential-cache.ts): revoking a token or
 * disabling or removing its user publishes an invalidation that empties the entry before the revoking request
 * returns.
 */
export class ApiTokens implements TokenAuthenticator {
  private readonly cache: CredentialCache;

  constructor(private readonly deps: { users: Pick<UserRepository, "findTokenByHash" | "touchToken">; invalidation: InvalidationBus }) {
    this.cache = new CredentialCache({ invalidation: deps.invalidation, touch: (id) => deps.users.touchToken(id) });
  }

  cached(token: string): Principal | undefined {
    return this.cache.cached(hashToken(token));
  }

  async authenticate(token: string): Promise<Principal | null> {
    const hash = hashToken(token);
    return this.cache.principal(hash, async () => {
      const row = await this.deps.users.findTokenByHash(hash);
      // A disabled or deleted user's tokens are refused like revoked ones (users-routes.ts).
      if (!row || row.revokedAt || row.user.disabledAt || row.user.deletedAt) return null;
      // An unknown role reads as viewer (UserRepository).
      return { principal: { userId: row.userId, name: row.user.name, role: row.user.role, tokenId: row.id, credential: "token" }, lastUsedAt: row.lastUsedAt };
    });
  }
}
