import "server-only";
import { cache } from "react";
import { cookies } from "next/headers";
import { redirect } from "next/navigation";
import { SESSION_COOKIE } from "./session-cookie";
import { fetchMe, type Me, type MeResult } from "./runner";

/** Who the cookie belongs to, asked once per request. */
export const currentUser = cache(async (): Promise<MeResult> => {
  const token = (await cookies()).get(SESSION_COOKIE)?.value;
  if (!token) return { kind: "unauthorized" };
  return fetchMe(token);
});

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
