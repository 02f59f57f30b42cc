import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TEST_ADMIN_TOKEN, startTestRunner, type TestRunner } from "../testing/runner-test-kit";

let kit: TestRunner;
beforeAll(async () => {
  kit = await startTestRunner();
});
afterAll(async () => kit?.close());

describe("runner API surface", () => {
  it("answers /healthz without a token and reports Docker and the database", async () => {
    const response = await fetch(`${kit.url}/healthz`);
    expect(await response.json()).toMatchObject({ ok: true, docker: { ok: true }, db: { ok: true } });
  });

  it("names the bad field with a 400 and refuses an oversized body with a 413", async () => {
    const bad = await kit.api<{ error: { code: string; message: string } }>("POST", "/api/sessions", { autonomy: "reckless" });
    expect(bad.status).toBe(400);
    expect(bad.body.error.message).toMatch(/autonomy/);
    const huge = await fetch(`${kit.url}/api/skills`, {
      method: "POST",
      headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}`, "content-type": "application/json" },
      body: JSON.stringify({ name: "big", description: "x", body: "x".repeat(13 * 1024 * 1024) }),
    });
    expect(huge.status).toBe(413);
    expect(((await huge.json()) as { error: { code: string } }).error.code).toBe("payload_too_large");
  });

  it("takes an empty JSON body as no arguments, and names malformed JSON with a 400", async () => {
    const headers = { authorization: `Bearer ${TEST_ADMIN_TOKEN}`, "content-type": "application/json" };
    await kit.api("POST", "/api/skills", { name: "empty-body", description: "x", body: "x" });
    const deleted = await fetch(`${kit.url}/api/skills/empty-body`, { method: "DELETE", headers });
    expect(deleted.status).toBe(204);
    const malformed = await fetch(`${kit.url}/api/skills`, { method: "POST", headers, body: "{not json" });
    expect(malformed.status).toBe(400);
    expect(((await malformed.json()) as { error: { code: string } }).error.code).toBe("bad_request");
    const poisoned = await fetch(`${kit.url}/api/skills`, { method: "POST", headers, body: '{"__proto__":{"admin":true}}' });
    expect(poisoned.status).toBe(400);
  });

  it("keeps skills with a content hash and a version that moves only when content changes", async () => {
    const created = await kit.api<{ version: number; contentHash: string }>("POST", "/api/skills", { name: "deploy-notes", description: "How we deploy", body: "# Deploy\n", allowedTools: ["bash"] });
    expect(created.status).toBe(201);
    expect(created.body.version).toBe(1);
    const same = await kit.api<{ version: number }>("PUT", "/api/skills/deploy-notes", { description: "How we deploy", body: "# Deploy\n" });
    expect(same.body.version).toBe(1);
    const changed = await kit.api<{ version: number; contentHash: string; allowedTools: string[] }>("PUT", "/api/skills/deploy-notes", { description: "How we deploy", body: "# Deploy v2\n" });
    expect(changed.body).toMatchObject({ version: 2, allowedTools: ["bash"] });
    expect(changed.body.contentHash).not.toBe(created.body.contentHash);
    expect((await kit.api("POST", "/api/skills", { name: "deploy-notes", description: "dup", body: "" })).status).toBe(409);
    expect((await kit.api("POST", "/api/skills", { name: "Bad Name", description: "x", body: "" })).status).toBe(400);
    expect((await kit.api("DELETE", "/api/skills/deploy-notes")).status).toBe(204);
    expect((await kit.api("GET", "/api/skills/deploy-notes")).status).toBe(404);
  });

  it("checks a policy rule's examples when it is saved, and applies it", async () => {
    const wrong = await kit.api<{ error: { message: string } }>("POST", "/api/policy-rules", { tool: "bash", commandPrefix: "npm run deploy", effect: "deny", mustMatch: ["npm run build"], mustNotMatch: [] });
    expect(wrong.status).toBe(400);
    expect(wrong.body.error.message).toMatch(/npm run build/);
    const saved = await kit.api("POST", "/api/policy-rules", { tool: "bash", commandPrefix: "npm run deploy", effect: "deny", mustMatch: ["npm run deploy -- --prod"], mustNotMatch: ["npm run deployx"] });
    expect(saved.status).toBe(201);
    const session = await kit.createSession({ autonomy: "yolo" });
    const denied = await kit.tool<{ ok: boolean; error: { code: string } }>(session, "bash", { command: "ls && npm run deploy" });
    expect(denied.body).toMatchObject({ ok: false, error: { code: "denied" } });
  });

  it("lists tokens for an admin without their secret, shows when each was revoked, and only to admins", async () => {
    const user = await kit.api<{ id: string }>("POST", "/api/users", { name: "tokens-dev", role: "developer" });
    const issued = await kit.api<{ id: string; token: string }>("POST", "/api/tokens", { userId: user.body.id, name: "laptop" });
    expect((await kit.api("DELETE", `/api/tokens/${issued.body.id}`)).status).toBe(204);
    const second = await kit.api<{ id: string; token: string }>("POST", "/api/tokens", { userId: user.body.id, name: "ci" });
    const listed = await kit.api<{ tokens: { id: string; userId: string; userName: string; name: string; revokedAt: string | null }[] }>("GET", "/api/tokens");
    expect(listed.status).toBe(200);
    expect(JSON.stringify(listed.body)).not.toContain(issued.body.token);
    expect(listed.body.tokens.filter((t) => t.userId === user.body.id)).toEqual([
      expect.objectContaining({ id: issued.body.id, userName: "tokens-dev", name: "laptop", revokedAt: expect.any(String) }),
      expect.objectContaining({ id: second.body.id, name: "ci", revokedAt: null }),
    ]);
    expect((await kit.api("GET", "/api/tokens", undefined, second.body.token)).status).toBe(403);
    // That refused call was still a use of the token: the list says when it was last used.
    await expect
      .poll(async () => (await kit.api<{ tokens: { id: string; lastUsedAt: string | null }[] }>("GET", "/api/tokens")).body.tokens.find((t) => t.id === second.body.id)?.lastUsedAt)
      .toEqual(expect.any(String));
    const unused = (await kit.api<{ tokens: { id: string; lastUsedAt: string | null }[] }>("GET", "/api/tokens")).body.tokens.find((t) => t.id === issued.body.id);
    expect(unused?.lastUsedAt).toBeNull();
  });

  it("exposes Prometheus metrics: sessions, runs by outcome, tool calls, approvals pending, latency", async () => {
    const text = await (await fetch(`${kit.url}/metrics`, { headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}` } })).text();
    for (const name of ["berth_sessions", "berth_runs", "berth_tool_calls_total", "berth_approvals_pending", "berth_tool_call_duration_seconds_bucket"]) {
      expect(text).toContain(name);
    }
    expect(text).toMatch(/berth_tool_calls_total\{tool="bash",result="denied"\} 1/);
  });
});
