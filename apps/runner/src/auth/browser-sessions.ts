import crypto from "node:crypto";
import type { Repositories } from "@berth/db";
import { USER_AGENT_MAX_CHARS, type BrowserSessionView, type CallerKind } from "@berth/protocol";
import { AppError } from "@berth/protocol";
import { authorize, listScope } from "./authorize";
import type { CredentialRevocation } from "./credential-revocation";
import { CredentialCache } from "./credential-cache";
import type { InvalidationBus } from "./invalidation-bus";
import { hashToken, newId, type Principal } from "./tokens";

/**
 * The browser's own credential, in a cookie of its own name (HttpOnly, SameSite=Strict, Path=/). It is
 * minted by the web app's sign-in from a token and is the only thing that makes a call `caller: browser`:
 * an API token is never read from a cookie, so a script cannot pass itself off as the person at the keyboard
 * by naming its token after this cookie or by any header.
 */
export const BROWSER_SESSION_COOKIE = "berth_browser";
export const DEFAULT_BROWSER_SESSION_HOURS = 12;

const SECRET_PREFIX = "berthb_";

/** Who a principal's calls are recorded as: a browser session is a person, an API token a script. */
export function callerOf(principal: Principal): Extract<CallerKind, "browser" | "api"> {
  return principal.credential === "browser" ? "browser" : "api";
}

/** The browser-session secret from a Cookie header, or null. Other cookies (berth_token included) are ignored. */
export function browserSecretFromCookie(cookie: string | undefined): string | null {
  if (!cookie) return null;
  for (const part of cookie.split(";")) {
    const [name, ...rest] = part.trim().split("=");
    if (name !== BROWSER_SESSION_COOKIE) continue;
    try {
      return decodeURIComponent(rest.join("=")) || null;
    } catch {
      return null;
    }
  }
  return null;
}

export class BrowserSessions {
  /** Resolved sign-ins by secret hash (three queries a request otherwise), never kept past their expiry. */
  private readonly cache: CredentialCache;

  constructor(
    private readonly deps: {
      repos: Pick<Repositories, "browserSessions" | "users">;
      /** How long a sign-in lasts (BERTH_BROWSER_SESSION_HOURS). */
      ttlMs: number;
      revocation?: CredentialRevocation;
      invalidation: InvalidationBus;
    },
  ) {
    // A sign-in goes stale when it is revoked, when the token it was minted with is, and with its user.
    this.cache = new CredentialCache({ invalidation: deps.invalidation, touch: (id) => deps.repos.browserSessions.touch(id) });
  }

  /** Signs a browser in as the token's user; the secret is in this answer only (its sha256 is stored). */
  async mint(principal: Principal, userAgent: string): Promise<{ session: BrowserSessionView; secret: string }> {
    authorize(principal, "browserSession", "create");
    if (principal.credential === "browser") {
      throw new AppError({ code: "forbidden", message: "A browser session cannot mint another: sign in with an API token" });
    }
    const secret = `${SECRET_PREFIX}${crypto.randomBytes(32).toString("base64url")}`;
    const row = await this.deps.repos.browserSessions.create({
      id: newId("bs"),
      userId: principal.userId,
      tokenId: principal.tokenId,
      secretHash: hashToken(secret),
      userAgent: userAgent.slice(0, USER_AGENT_MAX_CHARS),
      expiresAt: new Date(Date.now() + this.deps.ttlMs),
    });
    return { session: view(row, principal.name, row.id), secret };
  }

  /** The secret's user when memory holds them (a sign-in resolved before and not invalidated); undefined otherwise. */
  cached(secret: string): Principal | undefined {
    return secret.startsWith(SECRET_PREFIX) ? this.cache.cached(hashToken(secret)) : undefined;
  }

  /** Resolves a cookie's secret to its user, or null (unknown, expired, revoked, or the user disabled). */
  async authenticate(secret: string): Promise<Principal | null> {
    if (!secret.startsWith(SECRET_PREFIX)) return null;
    const hash = hashToken(secret);
    return this.cache.principal(hash, async () => {
      const row = await this.deps.repos.browserSessions.findBySecretHash(hash);
      if (!row || row.revokedAt || row.expiresAt.getTime() <= Date.now()) return null;
      const user = await this.deps.repos.users.get(row.userId);
      if (!user || user.disabledAt || user.deletedAt) return null;
      // Revoking the token a browser signed in with signs that browser out too.
      if (row.tokenId) {
        const token = await this.deps.repos.users.tokenRevokedAt(row.tokenId);
        if (!token || token.revokedAt) return null;
      }
      // An unknown role reads as viewer (UserRepository).
      const principal: Principal = { userId: user.id, name: user.name, role: user.role, tokenId: row.id, credential: "browser", ...(row.tokenId ? { mintedWith: row.tokenId } : {}) };
      return { principal, lastUsedAt: row.lastUsedAt, expiresAt: row.expiresAt };
    });
  }

  /** The caller's own sign-ins, newest first; an admin sees everyone's. */
  async list(principal: Principal): Promise<BrowserSessionView[]> {
    const { ownerId } = listScope(principal, "browserSession", "list");
    const rows = await this.deps.repos.browserSessions.list({ ...(ownerId ? { userId: ownerId } : {}), limit: 500 });
    const names = await this.deps.repos.users.namesOf(rows.map((r) => r.userId));
    const current = principal.credential === "browser" ? principal.tokenId : null;
    return rows.map((row) => view(row, names.get(row.userId) ?? row.userId, current));
  }

  /** Ends a sign-in (one's own, or anyone's for an admin) and its open sockets at once. */
  async revoke(id: string, principal: Principal): Promise<BrowserSessionView> {
    const row = await this.deps.repos.browserSessions.get(id);
    if (!row) throw new AppError({ code: "not_found", message: `Browser session not found: ${id}` });
    // Someone else's is "not found" to a non-admin: its id says nothing (docs/api.md, Roles).
    authorize(principal, "browserSession", "revoke", { id, ownerId: row.userId });
    const revoked = row.revokedAt ? row : await this.deps.repos.browserSessions.revoke(id);
    this.deps.invalidation.publish({ kind: "credential", id });
    this.deps.revocation?.disconnectCredential(id);
    await this.deps.invalidation.sent();
    const user = await this.deps.repos.users.get(row.userId);
    return view(revoked, user?.name ?? row.userId, principal.credential === "browser" ? principal.tokenId : null);
  }
}

function view(
  row: { id: string; userId: string; userAgent: string; createdAt: Date; expiresAt: Date; lastUsedAt: Date | null; revokedAt: Date | null },
  userName: string,
  currentId: string | null,
): BrowserSessionView {
  return {
    id: row.id,
    userId: row.userId,
    userName,
    userAgent: row.userAgent,
    createdAt: row.createdAt.toISOString(),
    expiresAt: row.expiresAt.toISOString(),
    lastUsedAt: row.lastUsedAt?.toISOString() ?? null,
    revokedAt: row.revokedAt?.toISOString() ?? null,
    current: row.id === currentId,
  };
}
