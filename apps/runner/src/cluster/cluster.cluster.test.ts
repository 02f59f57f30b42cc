import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TEST_ADMIN_TOKEN } from "../testing/runner-test-kit";
import { startChildCluster, type ChildCluster } from "../testing/child-cluster";

// The Done-when of issue 20 (docs/scale-out.md): two runners as child processes on one PostgreSQL database and one
// Redis, two Docker engines (the local one and a dockerd in a network namespace over mutual TLS), nginx in front.
// Each step below is one the issue names; they run in order on the same cluster.

type Health = { ok: boolean; docker: { ok: boolean; hosts?: { name: string; ok: boolean; sessions: number }[] } };
type Session = { id: string; status: string };

let cluster: ChildCluster;
beforeAll(async () => {
  cluster = await startChildCluster({ name: "cl", env: { BERTH_SESSION_LEASE_MS: "5000", BERTH_WARM_POOL: "0" } });
}, 300_000);
afterAll(async () => cluster?.close(), 180_000);

const viaProxy = async <T>(method: string, route: string, body?: unknown): Promise<{ status: number; body: T }> => {
  const response = await fetch(`${cluster.proxyUrl}${route}`, {
    method,
    headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    signal: AbortSignal.timeout(60_000),
  });
  const text = await response.text();
  return { status: response.status, body: (text ? JSON.parse(text) : null) as T };
};

describe("a cluster: two runners, one PostgreSQL, one Redis, two Docker engines, nginx in front", () => {
  it("starts: each runner drives both engines, and the proxy answers for the runners on one port", async () => {
    for (const runner of [cluster.a, cluster.b]) {
      const health = await runner.api<Health>("GET", "/healthz");
      expect(health.status).toBe(200);
      expect(health.body.docker.hosts?.map((h) => [h.name, h.ok])).toEqual([
        ["local", true],
        ["remote", true],
      ]);
    }
    const proxied = await viaProxy<Health>("GET", "/healthz");
    expect(proxied.status).toBe(200);
    expect(proxied.body.ok).toBe(true);
  });

  it("shares one database: a session created through the proxy is the same session on both runners", async () => {
    const created = await viaProxy<Session>("POST", "/api/sessions", { name: "cluster-shared", autonomy: "trusted" });
    expect(created.status).toBe(201);
    const [onA, onB] = await Promise.all([cluster.a, cluster.b].map((r) => r.api<Session & { name: string }>("GET", `/api/sessions/${created.body.id}`)));
    expect(onA?.status).toBe(200);
    expect(onB?.body).toEqual(onA?.body);
    expect(onB?.body.name).toBe("cluster-shared");
  });
});
