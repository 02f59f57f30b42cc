/**
 * The httpOnly cookie that carries the browser session's secret (minted at sign-in by the runner:
 * apps/runner/src/auth/browser-sessions.ts reads the same name). It is not an API token: a token is never
 * kept in the browser, and the runner never reads a token from a cookie.
 */
export const SESSION_COOKIE = "berth_browser";

/** The cookie earlier versions kept the API token in; cleared on sign-in and sign-out, read by nothing. */
export const LEGACY_TOKEN_COOKIE = "berth_token";

/** SameSite=Strict: no other site's page, link or form sends it (docs/api.md "Browser sessions"). */
export const SESSION_COOKIE_OPTIONS = { httpOnly: true, sameSite: "strict", path: "/" } as const;
