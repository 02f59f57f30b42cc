/** The httpOnly cookie that carries the runner token; the runner reads the same name (auth/tokens.ts). */
export const SESSION_COOKIE = "berth_token";

/** A week: tokens are long-lived; signing out clears the cookie at once. */
export const SESSION_COOKIE_MAX_AGE_S = 7 * 24 * 60 * 60;
