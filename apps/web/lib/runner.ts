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
