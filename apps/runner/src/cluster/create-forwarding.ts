import type { Repositories } from "@berth/db";
import type http from "node:http";
import type { Env } from "../env";
import { browserSecretFromCookie } from "../auth/browser-sessions";
import { tokenFromHeaders } from "../auth/tokens";
import { checkRequest, type HostAllowList } from "../http/request-guard";
import { ForwardMarker } from "./forward-marker";
import { ForwardToOwner, type OwnerLookup } from "./forward-to-owner";
import { OwnerSocketRelay } from "./owner-socket-relay";
import { PeerLinkServer, PeerLinks } from "./peer-link";
import { DEFAULT_BODY_LIMIT } from "../http/build-server";

export interface Forwarding {
  http: ForwardToOwner;
  sockets: OwnerSocketRelay;
  /** Where the other runners' links arrive (an upgrade on PEER_LINK_PATH); null without BERTH_CLUSTER_SECRET. */
  peers: PeerLinkServer | null;
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
  /** This runner's Host/Origin allow-list: a request it refuses is never forwarded early. */
  hosts: HostAllowList;
  log: (message: string) => void;
  /** The server's body limit (build-server.ts's `bodyLimitBytes`, DEFAULT_BODY_LIMIT unless set). */
  bodyLimit?: number;
}): Forwarding | null {
  const { env, repos } = opts;
  if (!env.BERTH_REDIS_URL && !env.BERTH_CLUSTER_SECRET) return null;
  const marker = new ForwardMarker(env.BERTH_RUNNER_ID, env.BERTH_CLUSTER_SECRET);
  const secret = env.BERTH_CLUSTER_SECRET;
  const http = new ForwardToOwner({
    ...(secret ? { links: new PeerLinks({ runnerId: env.BERTH_RUNNER_ID, secret, log: opts.log }), bodyLimit: opts.bodyLimit ?? DEFAULT_BODY_LIMIT } : {}),
    runnerId: env.BERTH_RUNNER_ID,
    marker,
    ownerOf: opts.ownerOf,
    holdsLocally: opts.holdsLocally,
    admitsEarly: (req) => presentsCredential(req) && checkRequest(req, opts.hosts) === null,
    sessionOfRun: async (runId) => (await repos.runs.get(runId))?.sessionId ?? null,
    sessionOfApproval: async (approvalId) => (await repos.approvals.get(approvalId))?.sessionId ?? null,
    log: opts.log,
  });
  const peers = secret
    ? new PeerLinkServer({
        runnerId: env.BERTH_RUNNER_ID,
        secret,
        admits: (req) => checkRequest(req, opts.hosts) === null,
        answersHere: (sessionId, from) => http.answersLinked(sessionId, from),
        log: opts.log,
      })
    : null;
  return { http, sockets: new OwnerSocketRelay(http, marker), peers };
}

/**
 * A bearer token or a browser sign-in cookie is there (not yet checked: the owner does that). A request with none
 * is left to this runner, whose answer is the 401, without a hop.
 */
function presentsCredential(req: http.IncomingMessage): boolean {
  return tokenFromHeaders({ authorization: req.headers.authorization }) !== null || browserSecretFromCookie(req.headers.cookie) !== null;
}
