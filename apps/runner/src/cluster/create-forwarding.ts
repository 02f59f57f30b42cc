import type { Repositories } from "@berth/db";
import type { Env } from "../env";
import { ForwardMarker } from "./forward-marker";
import { ForwardToOwner, type OwnerLookup } from "./forward-to-owner";
import { OwnerSocketRelay } from "./owner-socket-relay";

export interface Forwarding {
  http: ForwardToOwner;
  sockets: OwnerSocketRelay;
}

/**
 * Forwarding to a session's owner (docs/scale-out.md), for a runner that is one of several (BERTH_REDIS_URL or
 * BERTH_CLUSTER_SECRET set); null for a runner on its own, whose requests then take no detour at all.
 */
export function createForwarding(opts: {
  env: Pick<Env, "BERTH_RUNNER_ID" | "BERTH_REDIS_URL" | "BERTH_CLUSTER_SECRET">;
  repos: Pick<Repositories, "runs" | "approvals">;
  ownerOf: OwnerLookup;
  /** This runner has the session's container attached (the sandbox driver knows it). */
  holdsLocally: (sessionId: string) => boolean;
  log: (message: string) => void;
}): Forwarding | null {
  const { env, repos } = opts;
  if (!env.BERTH_REDIS_URL && !env.BERTH_CLUSTER_SECRET) return null;
  const marker = new ForwardMarker(env.BERTH_RUNNER_ID, env.BERTH_CLUSTER_SECRET);
  const http = new ForwardToOwner({
    runnerId: env.BERTH_RUNNER_ID,
    marker,
    ownerOf: opts.ownerOf,
    holdsLocally: opts.holdsLocally,
    sessionOfRun: async (runId) => (await repos.runs.get(runId))?.sessionId ?? null,
    sessionOfApproval: async (approvalId) => (await repos.approvals.get(approvalId))?.sessionId ?? null,
    log: opts.log,
  });
  return { http, sockets: new OwnerSocketRelay(http, marker) };
}
