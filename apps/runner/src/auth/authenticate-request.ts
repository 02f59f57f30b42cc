import type { TokenAuthenticator } from "./api-tokens";
import { browserSecretFromCookie, type BrowserSessions } from "./browser-sessions";
import { tokenFromHeaders, type Principal } from "./tokens";

export interface PresentedCredentials {
  authorization?: string | undefined;
  cookie?: string | undefined;
  /** socket.io `auth.token`: an API token, like the bearer header. */
  socketToken?: string | undefined;
}

export type RequestAuthenticator = (presented: PresentedCredentials) => Promise<{ principal: Principal | null; presented: boolean }>;

/**
 * One rule for REST and socket.io: an API token comes from `Authorization: Bearer` or socket `auth.token`
 * and is always `caller: api`; only the browser-session cookie makes a browser principal. A token that is
 * presented wins over a cookie and never falls back to it, so holding a token gives no way to the browser's
 * rights, and a bad token is refused rather than quietly read as the cookie's owner.
 */
export function createRequestAuthenticator(tokens: TokenAuthenticator, browserSessions: BrowserSessions | undefined): RequestAuthenticator {
  return async ({ authorization, cookie, socketToken }) => {
    const token = tokenFromHeaders({ authorization }) ?? (socketToken || null);
    if (token) return { principal: await tokens.authenticate(token), presented: true };
    const secret = browserSessions ? browserSecretFromCookie(cookie) : null;
    if (secret) return { principal: await browserSessions!.authenticate(secret), presented: true };
    return { principal: null, presented: false };
  };
}
