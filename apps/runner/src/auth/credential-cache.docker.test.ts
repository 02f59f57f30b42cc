import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestRunner, type TestRunner } from "../testing/runner-test-kit";

// Credentials and sessions are read from memory after the first request (api-tokens.ts, session-service.ts):
// through the real runner, a change made over the API applies to the very next request.

type Result = { ok: boolean; output: string };
type Parked = { status: string; approvalId: string };

let kit: TestRunner;

beforeAll(async () => {
  kit = await startTestRunner();
}, 120_000);

afterAll(async () => {
  await kit?.close();
});

async function developer(name: string): Promise<{ userId: string; tokenId: string; token: string }> {
  const user = await kit.api<{ id: string }>("POST", "/api/users", { name, role: "developer" });
  const token = await kit.api<{ id: string; token: string }>("POST", "/api/tokens", { userId: user.body.id });
  return { userId: user.body.id, tokenId: token.body.id, token: token.body.token };
}

describe("cached credentials and sessions through the runner", () => {
  it("refuses a token on the very next request after it is revoked, though its earlier requests were served from memory", async () => {
    const dev = await developer("cached-dev");
    const sessionId = await kit.createSession({ token: dev.token });
    for (let i = 0; i < 3; i++) expect((await kit.tool<Result>(sessionId, "write_file", { path: `f${i}.txt`, content: "x" }, { token: dev.token })).body.ok).toBe(true);
    expect((await kit.api("DELETE", `/api/tokens/${dev.tokenId}`)).status).toBe(204);
    expect((await kit.tool(sessionId, "read_file", { path: "f0.txt" }, { token: dev.token })).status).toBe(401);
    expect((await kit.api("GET", "/api/me", undefined, dev.token)).status).toBe(401);
  });

  it("applies a session's autonomy change to the very next call", async () => {
    const sessionId = await kit.createSession({ autonomy: "yolo" });
    // At yolo a script runs at once; read twice so the session row is cached.
    expect((await kit.tool<Result>(sessionId, "bash", { command: "echo one" })).body.ok).toBe(true);
    expect((await kit.tool<Result>(sessionId, "bash", { command: "echo two" })).body.ok).toBe(true);
    expect((await kit.api("PATCH", `/api/sessions/${sessionId}`, { autonomy: "default" })).status).toBe(200);
    // At default an API caller's command that writes outside a plain read asks first.
    const asked = await kit.tool<Parked>(sessionId, "bash", { command: "rm -rf build && echo three" });
    expect(asked.status).toBe(202);
    expect(asked.body.status).toBe("parked");
  });

  it("answers 404 for a deleted session on the very next call", async () => {
    const sessionId = await kit.createSession();
    expect((await kit.tool<Result>(sessionId, "read_file", { path: "missing.txt" })).status).toBe(200);
    expect((await kit.api("DELETE", `/api/sessions/${sessionId}`)).status).toBe(204);
    expect((await kit.tool(sessionId, "read_file", { path: "missing.txt" })).status).toBe(404);
  });
});
