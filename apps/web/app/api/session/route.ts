import { NextResponse, type NextRequest } from "next/server";
import { fetchMe } from "@/lib/runner";
import { SESSION_COOKIE, SESSION_COOKIE_MAX_AGE_S } from "@/lib/session-cookie";

export const dynamic = "force-dynamic";

function error(status: number, code: string, message: string) {
  return NextResponse.json({ error: { code, message } }, { status });
}

/** Sign-in: checks the token against the runner, then keeps it in an httpOnly cookie. */
export async function POST(request: NextRequest) {
  const body = (await request.json().catch(() => null)) as { token?: unknown } | null;
  const token = typeof body?.token === "string" ? body.token.trim() : "";
  if (!token) return error(400, "bad_request", "token: must be a non-empty string");
  if (token.length > 4096) return error(400, "bad_request", `token: must be at most 4096 characters (got ${token.length})`);
  const result = await fetchMe(token);
  if (result.kind === "unauthorized") return error(401, "unauthorized", "The runner does not accept this token");
  if (result.kind === "down") return error(502, "runner_unavailable", `The runner does not answer (${result.error})`);
  const response = NextResponse.json({ user: result.me });
  response.cookies.set(SESSION_COOKIE, token, {
    httpOnly: true,
    sameSite: "lax",
    path: "/",
    maxAge: SESSION_COOKIE_MAX_AGE_S,
    secure: request.nextUrl.protocol === "https:",
  });
  return response;
}

/** Sign-out: clears the cookie. */
export async function DELETE() {
  const response = new NextResponse(null, { status: 204 });
  response.cookies.set(SESSION_COOKIE, "", { httpOnly: true, sameSite: "lax", path: "/", maxAge: 0 });
  return response;
}
