import "server-only";
import { cache } from "react";
import { cookies } from "next/headers";
import { redirect } from "next/navigation";
import { SESSION_COOKIE } from "./session-cookie";
import { fetchMe, type Me, type MeResult } from "./runner";

/** Who the browser session's cookie belongs to, asked once per request. */
export const currentUser = cache(async (): Promise<MeResult> => {
  const session = await browserSession();
  if (!session) return { kind: "unauthorized" };
  return fetchMe(session);
});

/** The browser session's secret from this request's cookie, for server components that call the runner as the person. */
export async function browserSession(): Promise<string | undefined> {
  return (await cookies()).get(SESSION_COOKIE)?.value || undefined;
}

/**
 * For pages that need a signed-in user: redirects to /login (no or bad token) or to /unavailable
 * (runner down), carrying the page to come back to.
 */
export async function requireUser(next: string): Promise<Me> {
  const result = await currentUser();
  if (result.kind === "ok") return result.me;
  const back = encodeURIComponent(next);
  if (result.kind === "unauthorized") redirect(`/login?next=${back}`);
  redirect(`/unavailable?next=${back}`);
}
