import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Socket } from "socket.io-client";
import { TEST_ADMIN_TOKEN, emitWithAck } from "../testing/runner-test-kit";
import { startTwoRunners, type TwoRunners } from "../testing/two-runners";
import { waitFor } from "../chaos/chaos-kit";

// Two real runners on one PostgreSQL database and one Redis (BERTH_TEST_POSTGRES_URL, BERTH_TEST_REDIS_URL).
type Parked = { status: "parked"; approvalId: string; text: string; sha256: string };
type Result = { ok: boolean; details?: { stdout?: string } };

let cluster: TwoRunners;
let session: string;

beforeAll(async () => {
  cluster = await startTwoRunners();
  session = await cluster.a.createSession({ autonomy: "default" });
});
afterAll(async () => cluster?.close());

/** Every `event` a socket gets, from now on. */
function record<T>(socket: Socket, event: string): T[] {
  const got: T[] = [];
  socket.on(event, (payload: T) => got.push(payload));
  return got;
}
// After the first copy arrived, long enough for a second one over Redis to arrive too.
const settle = () => new Promise((r) => setTimeout(r, 750));

describe("two runners on one Redis", () => {
  it("shows Redis in /healthz", async () => {
    const health = await fetch(`${cluster.b.url}/healthz`).then((r) => r.json() as Promise<{ ok: boolean; redis?: unknown }>);
    expect(health).toMatchObject({ ok: true, redis: { ok: true, status: "up" } });
  });

  it("an approval decided on B releases the ?wait= caller on A at once", async () => {
    const call = { command: "sudo true; echo released-across-runners" };
    const parked = await cluster.a.tool<Parked>(session, "bash", call);
    expect(parked.status).toBe(202);
    // A holds this request until the decision or 60 s: only the decision crossing runners ends it with the result.
    const waiting = cluster.a.tool<Result>(session, "bash", call, { wait: 60_000 });
    await new Promise((r) => setTimeout(r, 500));
    const decided = await cluster.b.api("POST", `/api/approvals/${parked.body.approvalId}`, { decision: "approve", sha256: parked.body.sha256 });
    expect(decided.status).toBe(200);
    const released = await waiting;
    expect(released.status).toBe(200);
    expect(released.body.details?.stdout).toContain("released-across-runners");
  });

  it("an MCP call parked on A is released by a decision on B and returns its result", async () => {
    const client = new Client({ name: "berth-cluster-test", version: "1.0.0" });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${cluster.a.url}/mcp/${session}`), { requestInit: { headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}` } } }),
    );
    try {
      const call = client.callTool({ name: "bash", arguments: { command: "sudo true; echo mcp-released-across-runners" } }, undefined, { timeout: 60_000 });
      // The pending request, read through B (the database both share).
      let approval: { id: string; sha256: string; tool: string } | undefined;
      for (let i = 0; i < 100 && !approval; i++) {
        await new Promise((r) => setTimeout(r, 100));
        const pending = await cluster.b.api<{ approvals: { id: string; sha256: string; tool: string }[] }>("GET", "/api/approvals?status=pending");
        approval = pending.body.approvals.find((a) => a.tool === "bash");
      }
      expect(approval).toBeDefined();
      expect((await cluster.b.api("POST", `/api/approvals/${approval!.id}`, { decision: "approve", sha256: approval!.sha256 })).status).toBe(200);
      const result = await call;
      expect(result.isError).toBeFalsy();
      expect(JSON.stringify(result.content)).toContain("mcp-released-across-runners");
    } finally {
      await client.close();
    }
  });

  it("session:status and approval events emitted on A reach a socket on B once, and B's decision reaches a socket on A once", async () => {
    const onB = await cluster.b.socket();
    const onA = await cluster.a.socket();
    for (const socket of [onA, onB]) {
      await emitWithAck(socket, "session:join", { sessionId: session });
      await emitWithAck(socket, "approvals:subscribe", {});
    }
    const statusOnB = record<{ sessionId: string; autonomy?: string }>(onB, "session:status");
    const createdOnB = record<{ id: string }>(onB, "approval:created");
    const decidedOnB = record<{ id: string; status: string }>(onB, "approval:decided");
    const decidedOnA = record<{ id: string; status: string }>(onA, "approval:decided");

    const patched = await cluster.a.api("PATCH", `/api/sessions/${session}`, { autonomy: "trusted" });
    expect(patched.status).toBe(200);
    await waitFor("session:status on B", () => statusOnB.some((s) => s.autonomy === "trusted"));
    // Back to default, where sudo asks.
    expect((await cluster.a.api("PATCH", `/api/sessions/${session}`, { autonomy: "default" })).status).toBe(200);
    await waitFor("the second session:status on B", () => statusOnB.some((s) => s.autonomy === "default"));

    const parked = await cluster.a.tool<Parked>(session, "bash", { command: "sudo ls /root" });
    expect(parked.status).toBe(202);
    await waitFor("approval:created on B", () => createdOnB.length > 0);
    const denied = await cluster.b.api("POST", `/api/approvals/${parked.body.approvalId}`, { decision: "deny", sha256: parked.body.sha256 });
    expect(denied.status).toBe(200);
    await waitFor("approval:decided on both runners' sockets", () => decidedOnA.length > 0 && decidedOnB.length > 0);
    await settle();

    expect(statusOnB.map((s) => s.autonomy)).toEqual(["trusted", "default"]);
    expect(createdOnB.map((r) => r.id)).toEqual([parked.body.approvalId]);
    expect(decidedOnB.map((r) => [r.id, r.status])).toEqual([[parked.body.approvalId, "denied"]]);
    expect(decidedOnA.map((r) => [r.id, r.status])).toEqual([[parked.body.approvalId, "denied"]]);
  });

  it("a token revoked through B disconnects its socket on A and is refused by A", async () => {
    const user = await cluster.a.api<{ id: string }>("POST", "/api/users", { name: `dev-${Date.now()}`, role: "developer" });
    expect(user.status).toBe(201);
    const token = await cluster.a.api<{ id: string; token: string }>("POST", "/api/tokens", { userId: user.body.id });
    expect(token.status).toBe(201);
    // A has the credential cached and a socket open with it.
    expect((await cluster.a.api("GET", "/api/sessions", undefined, token.body.token)).status).toBe(200);
    const socket = await cluster.a.socket(token.body.token);
    const ended = new Promise<string>((resolve) => socket.once("disconnect", (reason) => resolve(reason)));

    const revoked = await cluster.b.api("DELETE", `/api/tokens/${token.body.id}`);
    expect(revoked.status).toBe(204);
    // B answers once A has confirmed the invalidation: A refuses the very next request.
    expect((await cluster.a.api("GET", "/api/sessions", undefined, token.body.token)).status).toBe(401);
    expect((await cluster.b.api("GET", "/api/sessions", undefined, token.body.token)).status).toBe(401);
    expect(await ended).toBe("io server disconnect");
  });

  it("a token revoked through B is refused by A on the very next request, every time (B waits for A to confirm)", async () => {
    const user = await cluster.a.api<{ id: string }>("POST", "/api/users", { name: `dev-loop-${Date.now()}`, role: "developer" });
    const refusedByA: number[] = [];
    for (let i = 0; i < 25; i++) {
      const token = await cluster.a.api<{ id: string; token: string }>("POST", "/api/tokens", { userId: user.body.id });
      expect((await cluster.a.api("GET", "/api/sessions", undefined, token.body.token)).status).toBe(200);
      expect((await cluster.b.api("DELETE", `/api/tokens/${token.body.id}`)).status).toBe(204);
      refusedByA.push((await cluster.a.api("GET", "/api/sessions", undefined, token.body.token)).status);
    }
    expect(refusedByA).toEqual(Array(25).fill(401));
  });

  it("a user disabled through B is refused by A on the next request, and their socket on A ends", async () => {
    const user = await cluster.a.api<{ id: string }>("POST", "/api/users", { name: `dev-off-${Date.now()}`, role: "developer" });
    const token = await cluster.a.api<{ id: string; token: string }>("POST", "/api/tokens", { userId: user.body.id });
    expect((await cluster.a.api("GET", "/api/sessions", undefined, token.body.token)).status).toBe(200);
    const socket = await cluster.a.socket(token.body.token);
    const ended = new Promise<string>((resolve) => socket.once("disconnect", (reason) => resolve(reason)));

    expect((await cluster.b.api("PATCH", `/api/users/${user.body.id}`, { disabled: true })).status).toBe(200);
    expect((await cluster.a.api("GET", "/api/sessions", undefined, token.body.token)).status).toBe(401);
    expect(await ended).toBe("io server disconnect");
  });
});
