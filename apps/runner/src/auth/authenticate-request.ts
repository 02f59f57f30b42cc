import type { TokenAuthenticator } from "./api-tokens";
import { browserSecretFromCookie, type BrowserSessions } from "./browser-sessions";
import { tokenFromHeaders, type Principal } from "./tokens";

export interface PresentedCredentials {
  authorization?: string | undefined;
  cookie?: string | undefined;
  /** socket.io `auth.token`: an API token, like the bearer header. */
  socketToken?: string | undefined;
}

export type Authentication = { principal: Principal | null; presented: boolean };

export type RequestAuthenticator = ((presented: PresentedCredentials) => Promise<Authentication>) & {
  /**
   * The same answer when it needs no lookup (nothing presented, or a credential resolved before and not
   * invalidated since); undefined when only the lookup can tell. Every request presents one, so the REST hook
   * answers these without a promise.
   */
  fromMemory(presented: PresentedCredentials): Authentication | undefined;
};

/**
 * One rule for REST and socket.io: an API token comes from `Authorization: Bearer` or socket `auth.token`
 * and is always `caller: api`; only the browser-session cookie makes a browser principal. A token that is
 * presented wins over a cookie and never falls back to it, so holding a token gives no way to the browser's
 * rights, and a bad token is refused rather than quietly read as the cookie's owner.
 */
export function createRequestAuthenticator(tokens: TokenAuthenticator, browserSessions: BrowserSessions | undefined): RequestAuthenticator {
  const credential = ({ authorization, cookie, socketToken }: PresentedCredentials): { token: string } | { secret: string } | undefined => {
    const token = tokenFromHeaders({ authorization }) ?? (socketToken || null);
    if (token) return { token };
    const secret = browserSessions ? browserSecretFromCookie(cookie) : null;
    return secret ? { secret } : undefined;
  };
  const authenticate = async (presented: PresentedCredentials): Promise<Authentication> => {
    const found = credential(presented);
    if (!found) return { principal: null, presented: false };
    if ("token" in found) return { principal: await tokens.authenticate(found.token), presented: true };
    return { principal: await browserSessions!.authenticate(found.secret), presented: true };
  };
  return Object.assign(authenticate, {
    fromMemory(presented: PresentedCredentials): Authentication | undefined {
      const found = credential(presented);
      if (!found) return { principal: null, presented: false };
      const principal = "token" in found ? tokens.cached?.(found.token) : browserSessions!.cached(found.secret);
      return principal ? { principal, presented: true } : undefined;
    },
  });
}
