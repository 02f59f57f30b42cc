import "server-only";

/** Where server components reach the runner (same variables as server.mjs). */
export function runnerUrl(): string {
  return process.env.BERTH_RUNNER_URL || `http://127.0.0.1:${process.env.BERTH_RUNNER_PORT || 4000}`;
}

export type Health = {
  ok: boolean;
  docker: { ok: boolean; version?: string; error?: string };
  db: { ok: boolean; latencyMs: number; error?: string };
};

/** Fetches /healthz; a runner that does not answer is reported, not thrown. */
export async function fetchHealth(): Promise<{ reachable: true; health: Health } | { reachable: false; error: string }> {
  try {
    const response = await fetch(`${runnerUrl()}/healthz`, { cache: "no-store", signal: AbortSignal.timeout(3000) });
    return { reachable: true, health: (await response.json()) as Health };
  } catch (error) {
    return { reachable: false, error: (error as Error).message };
  }
}

export type Role = "admin" | "operator" | "developer" | "viewer";
export type Me = { userId: string; name: string; role: Role; tokenId?: string };

export type MeResult = { kind: "ok"; me: Me } | { kind: "unauthorized" } | { kind: "down"; error: string };

/** Asks the runner who a token belongs to (`GET /api/me`); never throws. */
export async function fetchMe(token: string): Promise<MeResult> {
  let response: Response;
  try {
    response = await fetch(`${runnerUrl()}/api/me`, {
      headers: { authorization: `Bearer ${token}` },
      cache: "no-store",
      signal: AbortSignal.timeout(5000),
    });
  } catch (error) {
    return { kind: "down", error: (error as Error).message };
  }
  if (response.status === 401 || response.status === 403) return { kind: "unauthorized" };
  if (!response.ok) return { kind: "down", error: `the runner answered ${response.status}` };
  return { kind: "ok", me: (await response.json()) as Me };
}

/** Public fetch of a shared receipt (`GET /api/shared/:token`, no auth). */
export async function fetchShared(token: string): Promise<{ ok: true; data: unknown } | { ok: false; status: number; message: string }> {
  try {
    const response = await fetch(`${runnerUrl()}/api/shared/${encodeURIComponent(token)}`, { cache: "no-store", signal: AbortSignal.timeout(10_000) });
    const body = (await response.json().catch(() => null)) as { error?: { message?: string } } | null;
    if (!response.ok) return { ok: false, status: response.status, message: body?.error?.message ?? `the runner answered ${response.status}` };
    return { ok: true, data: body };
  } catch (error) {
    return { ok: false, status: 502, message: (error as Error).message };
  }
}
