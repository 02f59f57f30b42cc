import path from "node:path";
import { build } from "esbuild";
import { startHttpTestMcpServer } from "@berth/mcp/test";
import type { RunningHttpTestServer } from "@berth/mcp/test";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestRunner, type TestRunner } from "../testing/runner-test-kit";

const TEST_SERVER_SOURCE = path.resolve(import.meta.dirname, "../../../../packages/mcp/test-server/berth-test-mcp-server.mjs");

type ToolBody = { ok: boolean; output: string; details?: Record<string, unknown>; error?: { code: string; message: string } };
type Capability = { name: string; kind: string; description: string; actionClass: string };
type ServerView = { id: string; name: string; scope: string; ownerUserId: string; headerNames?: string[]; headers?: unknown };
type PinView = { toolName: string; schemaHash: string; acceptedHash: string; status: string };

let kit: TestRunner;
let bundle: string;
const httpServers: RunningHttpTestServer[] = [];

async function httpServer(label: string): Promise<string> {
  const server = await startHttpTestMcpServer({ label });
  httpServers.push(server);
  return server.url;
}

async function registerServer(body: Record<string, unknown>, token?: string): Promise<ServerView> {
  const { status, body: created } = await kit.api<ServerView>("POST", "/api/mcp-servers", body, token);
  expect(status, JSON.stringify(created)).toBe(201);
  return created;
}

async function find(sessionId: string, token?: string, server?: string): Promise<Capability[]> {
  const { status, body } = await kit.tool<ToolBody>(sessionId, "gateway", { op: "find", ...(server ? { server } : {}) }, token ? { token } : {});
  expect(status).toBe(200);
  expect(body.ok, JSON.stringify(body)).toBe(true);
  return (body.details as { capabilities: Capability[] }).capabilities;
}

async function gatewayCall(sessionId: string, capability: string, args: Record<string, unknown>, token?: string): Promise<ToolBody> {
  const { status, body } = await kit.tool<ToolBody>(sessionId, "gateway", { op: "call", capability, args }, token ? { token } : {});
  expect(status).toBe(200);
  return body;
}

async function newDeveloper(name: string): Promise<{ id: string; token: string }> {
  const user = await kit.api<{ id: string }>("POST", "/api/users", { name, role: "developer" });
  expect(user.status).toBe(201);
  const token = await kit.api<{ token: string }>("POST", "/api/tokens", { userId: user.body.id });
  expect(token.status).toBe(201);
  return { id: user.body.id, token: token.body.token };
}

async function until<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

beforeAll(async () => {
  // The SDK test server as one file that plain node 18 (the sandbox image's) runs without node_modules.
  const out = await build({
    entryPoints: [TEST_SERVER_SOURCE],
    bundle: true,
    platform: "node",
    target: "node18",
    format: "esm",
    write: false,
    logLevel: "warning",
    banner: { js: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);" },
  });
  bundle = out.outputFiles[0]!.text;
  // The test MCP servers listen on 127.0.0.1, where users' servers may only be when the runner allows it
  // (the last test checks the default).
  kit = await startTestRunner({ allowPrivateUserMcpUrls: true });
});

afterAll(async () => {
  await kit?.close();
  await Promise.all(httpServers.map((s) => s.stop()));
});

describe("MCP client gateway in the runner (real engine, real SDK servers)", () => {
  it("finds and calls a global Streamable HTTP server's tools through gateway and admission", async () => {
    const url = await httpServer("global-http");
    const server = await registerServer({ name: "global-http", transport: "http", url, headers: { "X-Api-Key": "secret-value-123" }, scope: "global" });
    try {
      expect(server.headerNames).toEqual(["X-Api-Key"]);
      expect(JSON.stringify(server)).not.toContain("secret-value-123");
      const listed = await kit.api<{ servers: ServerView[] }>("GET", "/api/mcp-servers");
      expect(JSON.stringify(listed.body)).not.toContain("secret-value-123");
      expect(listed.body.servers.map((s) => s.id)).toContain(server.id);

      const session = await kit.createSession({ autonomy: "trusted" });
      const capabilities = await find(session, undefined, "global-http");
      expect(capabilities.map((c) => c.name)).toEqual(expect.arrayContaining(["echo", "add", "whoami"]));
      expect(capabilities.find((c) => c.name === "echo")).toMatchObject({ kind: "mcp", actionClass: "network" });

      const echoed = await gatewayCall(session, "echo", { text: "hello over http" });
      expect(echoed).toMatchObject({ ok: true, output: "hello over http" });
      const added = await gatewayCall(session, "add", { a: 2, b: 40 });
      expect(added.output).toBe("42");
      const failed = await gatewayCall(session, "fail", { message: "nope" });
      expect(failed).toMatchObject({ ok: false, error: { code: "mcp_tool_error" } });

      // Each call is an execution: a run whose log is the tool's answer, sealed with a verifiable receipt.
      for (const [call, tool, stream, text, outcome] of [
        [echoed, "echo", "stdout", "hello over http", "succeeded"],
        [failed, "fail", "stderr", "nope", "failed"],
      ] as const) {
        const { runId, receiptId } = call as ToolBody & { runId?: string; receiptId?: string };
        expect(runId, JSON.stringify(call)).toMatch(/^run_/);
        const { body } = await kit.api<{ run: { kind: string; tool: string; status: string; outcome: string; receiptId: string; details: { server: string } } }>("GET", `/api/runs/${runId}`);
        expect(body.run).toMatchObject({ kind: "mcp", tool, status: "finished", outcome, receiptId, details: { server: "global-http" } });
        const log = await kit.api<{ content: string }>("GET", `/api/runs/${runId}/logs?stream=${stream}`);
        expect(log.body.content).toContain(text);
        const { body: receipt } = await kit.api<{ body: { outcome: string } }>("GET", `/api/receipts/${receiptId}`);
        expect(receipt.body.outcome).toBe(outcome);
        expect((await kit.api("POST", "/api/receipts/verify", { receipt })).body).toEqual({ valid: true });
      }

      // The MCP tool is also callable by its own name, and describe shows the upstream schema.
      const direct = await kit.tool<ToolBody>(session, "echo", { text: "direct" });
      expect(direct.body).toMatchObject({ ok: true, output: "direct" });
      const described = await kit.tool<ToolBody>(session, "gateway", { op: "describe", capability: "echo" });
      expect((described.body.details as { parameters: { required: string[] } }).parameters.required).toEqual(["text"]);
    } finally {
      expect((await kit.api("DELETE", `/api/mcp-servers/${server.id}`)).status).toBe(204);
    }
  });

  it("runs a user's stdio server inside the session container and calls it as user_<id>_tool_<name>", async () => {
    const session = await kit.createSession({ autonomy: "trusted" });
    const written = await kit.tool<ToolBody>(session, "write_file", { path: "mcp-test-server.mjs", content: bundle });
    expect(written.body.ok, JSON.stringify(written.body.error)).toBe(true);
    const server = await registerServer({ name: "stdio-in-box", transport: "stdio", command: "node", args: ["mcp-test-server.mjs", "--label", "in-box"], scope: "user" });
    try {
      const me = await kit.api<{ userId: string }>("GET", "/api/me");
      const prefix = `user_${me.body.userId}_tool_`;
      const names = (await find(session, undefined, "stdio-in-box")).map((c) => c.name);
      expect(names).toEqual(expect.arrayContaining([`${prefix}echo`, `${prefix}whoami`]));

      const whoami = await gatewayCall(session, `${prefix}whoami`, {});
      expect(whoami.ok, JSON.stringify(whoami)).toBe(true);
      expect(whoami.output).toMatch(/^in-box pid=\d+$/);
      const echoed = await gatewayCall(session, `${prefix}echo`, { text: "hello from the box — ünïcode" });
      expect(echoed.output).toBe("hello from the box — ünïcode");

      // It really is a process of the session's own container (the agent lists it).
      const processes = await kit.tool<ToolBody>(session, "bash", { action: "list" });
      const list = (processes.body.details as { processes: { command: string; status: string }[] }).processes;
      expect(list.find((p) => p.command.includes("mcp-test-server.mjs"))?.status).toBe("RUNNING");

      // A crash is a dropped connection; the next call after the backoff starts the server again. The crash tool
      // answers before its process exits (10 ms later, more on a loaded machine), so a whoami in between may still
      // reach the old process: wait for one from a new process.
      await gatewayCall(session, `${prefix}crash`, {});
      const again = await until("the stdio server to come back as a new process", async () => {
        const result = await gatewayCall(session, `${prefix}whoami`, {});
        return result.ok && result.output !== whoami.output ? result : undefined;
      });
      expect(again.output).toMatch(/^in-box pid=\d+$/);
    } finally {
      expect((await kit.api("DELETE", `/api/mcp-servers/${server.id}`)).status).toBe(204);
    }
  });

  it("keeps each user's servers to that user: find shows only their own, a forged name is refused", async () => {
    const alice = await newDeveloper("alice");
    const bob = await newDeveloper("bob");
    const aliceServer = await registerServer({ name: "mine", transport: "http", url: await httpServer("alice"), scope: "user" }, alice.token);
    const bobServer = await registerServer({ name: "mine", transport: "http", url: await httpServer("bob"), scope: "user" }, bob.token);
    // A developer may not register for everyone.
    const global = await kit.api("POST", "/api/mcp-servers", { name: "everyone", transport: "http", url: "http://127.0.0.1:1/mcp", scope: "global" }, alice.token);
    expect(global.status).toBe(403);

    const aliceSession = await kit.createSession({ autonomy: "trusted", token: alice.token });
    const bobSession = await kit.createSession({ autonomy: "trusted", token: bob.token });
    const aliceNames = (await find(aliceSession, alice.token)).map((c) => c.name);
    const bobNames = (await find(bobSession, bob.token)).map((c) => c.name);
    expect(aliceNames).toContain(`user_${alice.id}_tool_echo`);
    expect(aliceNames.some((n) => n.includes(bob.id))).toBe(false);
    expect(bobNames).toContain(`user_${bob.id}_tool_echo`);
    expect(bobNames.some((n) => n.includes(alice.id))).toBe(false);

    expect((await gatewayCall(aliceSession, `user_${alice.id}_tool_whoami`, {}, alice.token)).output).toMatch(/^alice /);
    expect((await gatewayCall(bobSession, `user_${bob.id}_tool_whoami`, {}, bob.token)).output).toMatch(/^bob /);

    // Alice forges Bob's tool name: through gateway, and by name directly. Neither reaches Bob's server.
    const forged = await gatewayCall(aliceSession, `user_${bob.id}_tool_echo`, { text: "x" }, alice.token);
    expect(forged).toMatchObject({ ok: false, error: { code: "unknown_tool" } });
    const forgedDirect = await kit.tool<ToolBody>(aliceSession, `user_${bob.id}_tool_echo`, { text: "x" }, { token: alice.token });
    expect(forgedDirect.body).toMatchObject({ ok: false, error: { code: "unknown_tool" } });

    // The REST side is scoped the same way: Bob's server is not listed to Alice, nor removable by her.
    const aliceList = await kit.api<{ servers: ServerView[] }>("GET", "/api/mcp-servers", undefined, alice.token);
    expect(aliceList.body.servers.map((s) => s.id)).toEqual([aliceServer.id]);
    expect((await kit.api("DELETE", `/api/mcp-servers/${bobServer.id}`, undefined, alice.token)).status).toBe(404);
    expect((await kit.api("DELETE", `/api/mcp-servers/${bobServer.id}`, undefined, bob.token)).status).toBe(204);
    expect((await kit.api("DELETE", `/api/mcp-servers/${aliceServer.id}`)).status).toBe(204);
  });

  it("holds a tool whose schema changed: calls park until an operator accepts the new hash", async () => {
    const server = await registerServer({ name: "flipper", transport: "http", url: await httpServer("flipper"), scope: "global" });
    try {
      const session = await kit.createSession({ autonomy: "trusted" });
      expect((await kit.tool<ToolBody>(session, "echo", { text: "before" })).body).toMatchObject({ ok: true, output: "before" });
      const pinsOf = async () => (await kit.api<{ pins: PinView[] }>("GET", `/api/mcp-servers/${server.id}/pins`)).body.pins;
      const before = (await pinsOf()).find((p) => p.toolName === "echo")!;
      expect(before.status).toBe("accepted");

      // The upstream changes echo's schema and announces tools/list_changed.
      expect((await gatewayCall(session, "flip_schema", {})).output).toBe("variant 2");
      const held = await until("echo to be held", async () => (await pinsOf()).find((p) => p.toolName === "echo" && p.status === "held"));
      expect(held.acceptedHash).toBe(before.schemaHash);

      // Held: the call parks for an operator (202) even though the session is trusted.
      const parked = await kit.tool<{ status: string; approvalId: string; sha256: string }>(session, "echo", { text: "held" });
      expect(parked.status).toBe(202);
      expect(parked.body.status).toBe("parked");
      // Approving that one call runs it, against the changed schema; the tool stays held.
      expect((await kit.api("POST", `/api/approvals/${parked.body.approvalId}`, { decision: "approve", sha256: parked.body.sha256 })).status).toBe(200);
      const approved = await kit.tool<ToolBody>(session, "echo", { text: "held" });
      expect(approved.body).toMatchObject({ ok: true, output: "held" });
      expect((await kit.tool(session, "echo", { text: "still held" })).status).toBe(202);

      // Accepting needs the current hash; a stale one is refused.
      const stale = await kit.api("POST", `/api/mcp-servers/${server.id}/accept`, { toolName: "echo", schemaHash: before.schemaHash });
      expect(stale.status).toBe(409);
      const accepted = await kit.api<PinView>("POST", `/api/mcp-servers/${server.id}/accept`, { toolName: "echo", schemaHash: held.schemaHash });
      expect(accepted.status).toBe(200);
      expect(accepted.body).toMatchObject({ status: "accepted", acceptedHash: held.schemaHash });

      const after = await kit.tool<ToolBody>(session, "echo", { text: "accepted", upper: true });
      expect(after.status).toBe(200);
      expect(after.body).toMatchObject({ ok: true, output: "ACCEPTED" });
    } finally {
      expect((await kit.api("DELETE", `/api/mcp-servers/${server.id}`)).status).toBe(204);
    }
  });

  it("keeps servers and pins across a runner restart: a held tool is still held", async () => {
    const server = await registerServer({ name: "survivor", transport: "http", url: await httpServer("survivor"), scope: "global" });
    try {
      const session = await kit.createSession({ autonomy: "trusted" });
      expect((await kit.tool<ToolBody>(session, "echo", { text: "one" })).body.ok).toBe(true);
      await gatewayCall(session, "flip_schema", {});
      const pinsOf = async () => (await kit.api<{ pins: PinView[] }>("GET", `/api/mcp-servers/${server.id}/pins`)).body.pins;
      await until("echo to be held", async () => (await pinsOf()).find((p) => p.toolName === "echo" && p.status === "held"));

      await kit.restart();
      // The new runner loads the server from the database and the pin still says held.
      expect((await kit.tool(session, "echo", { text: "after restart" })).status).toBe(202);
      expect((await kit.tool<ToolBody>(session, "whoami", {})).body).toMatchObject({ ok: true, output: expect.stringMatching(/^survivor /) });
    } finally {
      expect((await kit.api("DELETE", `/api/mcp-servers/${server.id}`)).status).toBe(204);
    }
  });

  it("validates registrations and names the bad field", async () => {
    const missing = await kit.api<{ error: { message: string } }>("POST", "/api/mcp-servers", { name: "x", transport: "stdio", scope: "user" });
    expect(missing.status).toBe(400);
    expect(missing.body.error.message).toMatch(/command/);
    const badUrl = await kit.api<{ error: { message: string } }>("POST", "/api/mcp-servers", { name: "x", transport: "http", url: "ftp://a", scope: "global" });
    expect(badUrl.status).toBe(400);
    expect(badUrl.body.error.message).toMatch(/url/);
  });

  it("by default refuses a user's http server on a loopback or private address, by IP or by name; operators may register one", async () => {
    const guarded = await startTestRunner();
    try {
      const target = await httpServer("internal");
      const byAddress = await guarded.api<{ error: { message: string } }>("POST", "/api/mcp-servers", { name: "inside", transport: "http", url: target, scope: "user" });
      expect(byAddress.status).toBe(400);
      expect(byAddress.body.error.message).toMatch(/^url: 127\.0\.0\.1 is not a public address/);
      for (const url of [target.replace("127.0.0.1", "localhost"), "http://169.254.169.254/latest/meta-data", "http://[::1]:9/mcp", "http://10.0.0.5/mcp"]) {
        const refused = await guarded.api<{ error: { message: string } }>("POST", "/api/mcp-servers", { name: "inside", transport: "http", url, scope: "user" });
        expect(refused.status, url).toBe(400);
        expect(refused.body.error.message, url).toMatch(/not a public address/);
      }
      expect((await guarded.api<{ servers: ServerView[] }>("GET", "/api/mcp-servers")).body.servers).toEqual([]);
      const global = await guarded.api<ServerView>("POST", "/api/mcp-servers", { name: "ops-internal", transport: "http", url: target, scope: "global" });
      expect(global.status).toBe(201);
    } finally {
      await guarded.close();
    }
  });
});
