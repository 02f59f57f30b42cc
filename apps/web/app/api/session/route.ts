import { NextResponse, type NextRequest } from "next/server";
import { mintBrowserSession, revokeBrowserSession } from "@/lib/runner";
import { LEGACY_TOKEN_COOKIE, SESSION_COOKIE, SESSION_COOKIE_OPTIONS } from "@/lib/session-cookie";

export const dynamic = "force-dynamic";

function error(status: number, code: string, message: string) {
  return NextResponse.json({ error: { code, message } }, { status });
}

/**
 * Sign-in: the runner checks the token and mints a browser session; its secret goes into the browser's
 * own HttpOnly SameSite=Strict cookie, which expires with the session. The token is not kept.
 */
export async function POST(request: NextRequest) {
  const body = (await request.json().catch(() => null)) as { token?: unknown } | null;
  const token = typeof body?.token === "string" ? body.token.trim() : "";
  if (!token) return error(400, "bad_request", "token: must be a non-empty string");
  if (token.length > 4096) return error(400, "bad_request", `token: must be at most 4096 characters (got ${token.length})`);
  const result = await mintBrowserSession(token, request.headers.get("user-agent") ?? "");
  if (result.kind === "unauthorized") return error(401, "unauthorized", "The runner does not accept this token");
  if (result.kind === "down") return error(502, "runner_unavailable", `The runner does not answer (${result.error})`);
  const { signIn } = result;
  const response = NextResponse.json({ user: signIn.user, expiresAt: signIn.expiresAt });
  response.cookies.set(SESSION_COOKIE, signIn.secret, {
    ...SESSION_COOKIE_OPTIONS,
    expires: new Date(signIn.expiresAt),
    secure: request.nextUrl.protocol === "https:",
  });
  response.cookies.set(LEGACY_TOKEN_COOKIE, "", { ...SESSION_COOKIE_OPTIONS, maxAge: 0 });
  return response;
}

/** Sign-out: the runner revokes the browser session (its sockets end at once), then the cookie goes. */
export async function DELETE(request: NextRequest) {
  const session = request.cookies.get(SESSION_COOKIE)?.value;
  if (session) await revokeBrowserSession(session);
  const response = new NextResponse(null, { status: 204 });
  response.cookies.set(SESSION_COOKIE, "", { ...SESSION_COOKIE_OPTIONS, maxAge: 0 });
  response.cookies.set(LEGACY_TOKEN_COOKIE, "", { ...SESSION_COOKIE_OPTIONS, maxAge: 0 });
  return response;
}
