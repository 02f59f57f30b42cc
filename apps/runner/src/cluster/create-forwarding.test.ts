import type http from "node:http";
import type { Repositories } from "@berth/db";
import { describe, expect, it } from "vitest";
import { hostAllowList } from "../http/request-guard";
import { createForwarding } from "./create-forwarding";

const SECRET = "cluster-secret-0123456789abcdef0123456789";

/** A runner of several on port 4000; every session is held by runner-a elsewhere; the lookups it made. */
function forwarding() {
  const lookups: string[] = [];
  const made = createForwarding({
    env: { BERTH_RUNNER_ID: "runner-b", BERTH_REDIS_URL: undefined, BERTH_CLUSTER_SECRET: SECRET },
    repos: { runs: { get: async () => null }, approvals: { get: async () => null } } as unknown as Pick<Repositories, "runs" | "approvals">,
    ownerOf: async (sessionId) => {
      lookups.push(sessionId);
      return null;
    },
    holdsLocally: () => false,
    hosts: hostAllowList({ allowedHosts: [], ports: () => [4000] }),
    log: () => undefined,
  });
  if (!made) throw new Error("a runner with BERTH_CLUSTER_SECRET forwards");
  return { http: made.http, lookups };
}

/** Whether `early` left the request to Fastify at once (before any lookup), and the lookups it started. */
function leftToFastify(headers: http.IncomingHttpHeaders): { next: boolean; lookups: string[] } {
  const { http: forward, lookups } = forwarding();
  let next = false;
  const req = { method: "POST", url: "/api/sessions/s1/tools/read_file", headers, rawHeaders: [] } as unknown as http.IncomingMessage;
  forward.early(req, {} as http.ServerResponse, () => (next = true));
  return { next, lookups };
}

describe("createForwarding: what is forwarded before Fastify", () => {
  it("a request with no credential is left to this runner (its 401), without a lookup", () => {
    expect(leftToFastify({ host: "127.0.0.1:4000" })).toEqual({ next: true, lookups: [] });
    expect(leftToFastify({ host: "127.0.0.1:4000", authorization: "Basic abc", cookie: "other=1" })).toEqual({ next: true, lookups: [] });
  });

  it("a request this runner's Host/Origin guard refuses is left to it (its 421/403), credential or not", () => {
    expect(leftToFastify({ host: "evil.example:4000", authorization: "Bearer tok" })).toEqual({ next: true, lookups: [] });
    expect(leftToFastify({ host: "127.0.0.1:4000", origin: "http://evil.example", authorization: "Bearer tok" })).toEqual({ next: true, lookups: [] });
  });

  it("a bearer token or a browser sign-in cookie on an allowed Host goes on to the owner lookup", () => {
    // A cookie's POST carries its page's Origin (the guard's rule for an ambient credential).
    for (const headers of [{ authorization: "Bearer tok" }, { cookie: "berth_browser=secret", origin: "http://127.0.0.1:4000" }]) {
      const { next, lookups } = leftToFastify({ host: "127.0.0.1:4000", ...headers });
      expect(next).toBe(false);
      expect(lookups).toEqual(["s1"]);
    }
  });
});
