import "server-only";
import { ApiErrorBodySchema, HealthSchema, MeSchema, MintedBrowserSessionSchema, SessionDetailSchema, SharedReceiptSchema, ToolResultSchema, type Health, type Me, type MintedBrowserSession, type SharedReceipt } from "@berth/protocol";
import { FILE_TREE_GLOB, type ResponseSchema, type Session } from "./api";
import { webEnv } from "./env";
import { SESSION_COOKIE } from "./session-cookie";

/** Where server components reach the runner (same variables as server.mjs). */
export function runnerUrl(): string {
  return webEnv().runnerUrl;
}

/**
 * A request to the runner from the server: never cached, bounded in time, with the user's credential if
 * given: a token (sign-in only) as a bearer, or the browser session's secret as the browser's own cookie,
 * so the runner sees the person (caller: browser), as it does for the page's own requests. The Origin is
 * the runner's own: this server is not a cross-site page, and the runner refuses a cookie-bearing POST
 * without one.
 */
function runnerFetch(path: string, opts: { token?: string; session?: string; timeoutMs?: number; method?: string; json?: unknown } = {}): Promise<Response> {
  const headers: Record<string, string> = {};
  if (opts.token) headers.authorization = `Bearer ${opts.token}`;
  if (opts.session) {
    headers.cookie = `${SESSION_COOKIE}=${encodeURIComponent(opts.session)}`;
    headers.origin = new URL(runnerUrl()).origin;
  }
  if (opts.json !== undefined) headers["content-type"] = "application/json";
  return fetch(`${runnerUrl()}${path}`, {
    method: opts.method ?? "GET",
    headers,
    body: opts.json === undefined ? undefined : JSON.stringify(opts.json),
    cache: "no-store",
    signal: AbortSignal.timeout(opts.timeoutMs ?? 5000),
  });
}

export type { Health };

/** Fetches /healthz; a runner that does not answer is reported, not thrown. */
export async function fetchHealth(): Promise<{ reachable: true; health: Health } | { reachable: false; error: string }> {
  try {
    const response = await runnerFetch("/healthz", { timeoutMs: 3000 });
    const health = await parsedJson(response, HealthSchema);
    return health ? { reachable: true, health } : { reachable: false, error: "the runner's /healthz answer does not match HealthSchema" };
  } catch (error) {
    return { reachable: false, error: (error as Error).message };
  }
}

export type { Me };
/** The runner's JSON answer parsed with its protocol schema; what does not parse is the runner being down. */
async function parsedJson<T>(response: Response, schema: ResponseSchema<T>): Promise<T | null> {
  const parsed = schema.safeParse(await response.json().catch(() => null));
  return parsed.success ? parsed.data : null;
}

export type MeResult = { kind: "ok"; me: Me } | { kind: "unauthorized" } | { kind: "down"; error: string };

/** Asks the runner who a browser session belongs to (`GET /api/me`); never throws. */
export async function fetchMe(session: string): Promise<MeResult> {
  let response: Response;
  try {
    response = await runnerFetch("/api/me", { session });
  } catch (error) {
    return { kind: "down", error: (error as Error).message };
  }
  if (response.status === 401 || response.status === 403) return { kind: "unauthorized" };
  if (!response.ok) return { kind: "down", error: `the runner answered ${response.status}` };
  const me = await parsedJson(response, MeSchema);
  return me ? { kind: "ok", me } : { kind: "down", error: "the runner's /api/me answer does not match MeSchema" };
}

export type BrowserSignIn = MintedBrowserSession;

/**
 * Sign-in: the runner checks the token and mints a browser session for its user (the token itself is
 * not kept). `unauthorized` for a token the runner refuses; never throws.
 */
export async function mintBrowserSession(token: string, userAgent: string): Promise<{ kind: "ok"; signIn: BrowserSignIn } | { kind: "unauthorized" } | { kind: "down"; error: string }> {
  let response: Response;
  try {
    response = await runnerFetch("/api/browser-sessions", { token, method: "POST", json: { userAgent: userAgent.slice(0, 512) } });
  } catch (error) {
    return { kind: "down", error: (error as Error).message };
  }
  if (response.status === 401 || response.status === 403) return { kind: "unauthorized" };
  if (!response.ok) return { kind: "down", error: `the runner answered ${response.status}` };
  const signIn = await parsedJson(response, MintedBrowserSessionSchema);
  return signIn ? { kind: "ok", signIn } : { kind: "down", error: "the runner's sign-in answer does not match MintedBrowserSessionSchema" };
}

/** Sign-out: the runner revokes the session (and ends its sockets). Best effort: the cookie goes anyway. */
export async function revokeBrowserSession(session: string): Promise<void> {
  await runnerFetch("/api/browser-sessions/current", { session, method: "DELETE" }).catch(() => undefined);
}

/** Public fetch of a shared receipt (`GET /api/shared/:token`, no auth). */
export async function fetchShared(token: string): Promise<{ ok: true; data: SharedReceipt } | { ok: false; status: number; message: string }> {
  try {
    const response = await runnerFetch(`/api/shared/${encodeURIComponent(token)}`, { timeoutMs: 10_000 });
    const body: unknown = await response.json().catch(() => null);
    if (!response.ok) {
      const error = ApiErrorBodySchema.safeParse(body);
      return { ok: false, status: response.status, message: error.success ? error.data.error.message : `the runner answered ${response.status}` };
    }
    const shared = SharedReceiptSchema.safeParse(body);
    if (!shared.success) return { ok: false, status: 502, message: `the runner's share answer does not match SharedReceiptSchema at ${shared.error.issues[0]?.path.join(".") ?? "the body"}` };
    return { ok: true, data: shared.data };
  } catch (error) {
    return { ok: false, status: 502, message: (error as Error).message };
  }
}

/** What the IDE page shows before its scripts run: the session and its file list, or null where unknown. */
export type IdeFirstView = { session: Session | null; files: string[] | null };

/**
 * Fetches the IDE's first view on the server, with the page request, so the tree is in the HTML instead
 * of waiting for the page's scripts and two more round trips. Never throws: whatever fails is loaded by
 * the page itself, which shows the error.
 */
export async function fetchIdeFirstView(browserSession: string, sessionId: string): Promise<IdeFirstView> {
  const base = `/api/sessions/${encodeURIComponent(sessionId)}`;
  const ask = async <T,>(path: string, schema: ResponseSchema<T>, opts: { method?: string; json?: unknown } = {}): Promise<T | null> => {
    try {
      const response = await runnerFetch(`${base}${path}`, { ...opts, session: browserSession });
      return response.ok ? await parsedJson(response, schema) : null;
    } catch {
      return null;
    }
  };
  const [session, listing] = await Promise.all([ask("", SessionDetailSchema), ask("/tools/glob", ToolResultSchema, { method: "POST", json: { args: FILE_TREE_GLOB } })]);
  const files = listing?.ok ? ((listing.details as { files?: string[] } | undefined)?.files ?? null) : null;
  return { session, files };
}
