import { afterEach, describe, expect, it } from "vitest";
import { InMemorySchemaPinStore } from "../pinning";
import { createHostStdioLauncher, startHttpTestMcpServer, testServerArgs } from "../testing";
import type { RunningHttpTestServer } from "../testing";
import { McpClientGateway } from ".";
import type { McpClientGatewayOptions, McpScope, McpServerEntry } from ".";

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function gatewayWith(opts: Partial<McpClientGatewayOptions> = {}): McpClientGateway {
  const gateway = new McpClientGateway({
    pins: new InMemorySchemaPinStore(),
    stdio: createHostStdioLauncher(),
    backoff: { initialMs: 20, maxMs: 200 },
    ...opts,
  });
  cleanups.push(() => gateway.close());
  return gateway;
}

async function httpServer(label = "http", variant: 1 | 2 = 1): Promise<RunningHttpTestServer> {
  const server = await startHttpTestMcpServer({ label, variant });
  cleanups.push(() => server.stop());
  return server;
}

function stdioEntry(id: string, extra: Partial<McpServerEntry> = {}, variant: 1 | 2 = 1): McpServerEntry {
  // In production `command` runs inside the session's container; the host launcher runs it here.
  return {
    id,
    name: id,
    transport: "stdio",
    command: process.execPath,
    args: testServerArgs({ label: id, variant }),
    scope: "global",
    ...extra,
  } as McpServerEntry;
}

function httpEntry(id: string, url: string, extra: Partial<McpServerEntry> = {}): McpServerEntry {
  return { id, name: id, transport: "http", url, scope: "global", ...extra } as McpServerEntry;
}

const scope: McpScope = { userId: "1", sessionId: "sess-a" };

async function waitFor(check: () => boolean | Promise<boolean>, timeoutMs = 30_000): Promise<void> {
  const start = Date.now();
  while (!(await check())) {
    if (Date.now() - start > timeoutMs) throw new Error("condition not met in time");
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe(
  "McpClientGateway over stdio (the test server as a child process, standing in for the container)",
  { timeout: 60_000 },
  () => {
    it("lists the server's tools as session tools and calls them", async () => {
      const launcher = createHostStdioLauncher();
      const gateway = gatewayWith({ stdio: launcher });
      gateway.upsertServer(stdioEntry("local"));
      const tools = await gateway.listTools(scope);
      expect(tools.map((t) => t.name)).toEqual(["add", "crash", "echo", "fail", "flip_schema", "slow", "whoami"]);
      expect(tools.every((t) => t.origin === "session" && t.status === "accepted")).toBe(true);
      expect(launcher.launched).toEqual([{ sessionId: "sess-a", userId: "1", serverId: "local" }]);

      expect(await gateway.callTool("echo", { text: "hi" }, scope)).toMatchObject({
        ok: true,
        output: "hi",
        trace: { mcpServer: "local", tool: "echo" },
      });
      const sum = await gateway.callTool("add", '{"a":2,"b":3}', scope);
      expect(sum).toMatchObject({ ok: true, output: "5", details: { structuredContent: { sum: 5 } } });
    });

    it("turns isError into ok:false and bad arguments into invalid_arguments", async () => {
      const gateway = gatewayWith();
      gateway.upsertServer(stdioEntry("local"));
      const failed = await gateway.callTool("fail", { message: "nope" }, scope);
      expect(failed).toMatchObject({ ok: false, output: "nope", error: { code: "mcp_tool_error" } });
      expect(await gateway.callTool("echo", [1, 2], scope)).toMatchObject({
        ok: false,
        error: { code: "invalid_arguments" },
      });
      expect(await gateway.callTool("nope", {}, scope)).toMatchObject({ ok: false, error: { code: "unknown_tool" } });
    });

    it("starts one server per session and closes it with the session", async () => {
      const launcher = createHostStdioLauncher();
      const gateway = gatewayWith({ stdio: launcher });
      gateway.upsertServer(stdioEntry("local"));
      const a = await gateway.callTool("whoami", {}, scope);
      const b = await gateway.callTool("whoami", {}, { userId: "1", sessionId: "sess-b" });
      expect(a.output).not.toBe(b.output);
      expect(launcher.launched.map((l) => l.sessionId)).toEqual(["sess-a", "sess-b"]);
      await gateway.closeSession("sess-a");
      expect(gateway.listCachedTools(scope)).toEqual([]);
      expect(gateway.listCachedTools({ userId: "1", sessionId: "sess-b" })).not.toEqual([]);
    });

    it("times out a call (default 60 s, here 500 ms; a call may pass its own) and keeps the connection usable", async () => {
      const gateway = gatewayWith({ callTimeoutMs: 500 });
      gateway.upsertServer(stdioEntry("local"));
      await gateway.prepare(scope);
      const slow = await gateway.callTool("slow", { ms: 10_000 }, scope);
      expect(slow).toMatchObject({ ok: false, error: { code: "mcp_timeout" } });
      expect(slow.output).toContain("within 500 ms");
      const own = await gateway.callTool("slow", { ms: 10_000 }, scope, { timeoutMs: 200 });
      expect(own.output).toContain("within 200 ms");
      expect(await gateway.callTool("echo", { text: "still here" }, scope)).toMatchObject({
        ok: true,
        output: "still here",
      });
    });

    it("reconnects with backoff after the server process dies", async () => {
      const launcher = createHostStdioLauncher();
      const gateway = gatewayWith({ stdio: launcher });
      gateway.upsertServer(stdioEntry("local"));
      const before = await gateway.callTool("whoami", {}, scope);
      await gateway.callTool("crash", {}, scope);
      await waitFor(() => launcher.launched.length >= 2);
      await waitFor(async () => (await gateway.callTool("whoami", {}, scope)).ok);
      const after = await gateway.callTool("whoami", {}, scope);
      expect(after.output).not.toBe(before.output);
    });

    it("reports a stdio server as unavailable when no launcher is configured (never spawns on the host)", async () => {
      const gateway = new McpClientGateway({ pins: new InMemorySchemaPinStore() });
      cleanups.push(() => gateway.close());
      gateway.upsertServer(stdioEntry("local"));
      const { tools, unavailable } = await gateway.prepare(scope);
      expect(tools).toEqual([]);
      expect(unavailable[0]?.message).toMatch(/no launcher/);
    });
  },
);

describe("McpClientGateway over Streamable HTTP", { timeout: 60_000 }, () => {
  it("lists and calls a global http server's tools", async () => {
    const server = await httpServer();
    const gateway = gatewayWith();
    gateway.upsertServer(httpEntry("remote", server.url));
    const tools = await gateway.listTools(scope);
    expect(tools.find((t) => t.name === "add")).toMatchObject({
      origin: "global",
      transport: "http",
      serverName: "remote",
    });
    expect(await gateway.callTool("add", { a: 40, b: 2 }, scope)).toMatchObject({ ok: true, output: "42" });
  });

  it("reports an unreachable server and recovers once it is up (backoff, then reconnect)", async () => {
    const first = await httpServer("first");
    const port = Number(new URL(first.url).port);
    await first.stop();
    const gateway = gatewayWith({ connectTimeoutMs: 10_000 });
    gateway.upsertServer(httpEntry("remote", first.url));
    const { unavailable } = await gateway.prepare(scope);
    expect(unavailable.map((u) => u.serverId)).toEqual(["remote"]);
    const again = await startHttpTestMcpServer({ label: "again", port });
    cleanups.push(() => again.stop());
    await waitFor(async () => (await gateway.callTool("whoami", {}, scope)).ok);
    expect((await gateway.callTool("whoami", {}, scope)).output).toMatch(/^again/);
  });
});

describe("schema pinning", { timeout: 60_000 }, () => {
  it("a call prepared while a list_changed re-listing is in flight is judged against the new listing (held), not the replaced one", async () => {
    const server = await httpServer();
    // Pins written slowly (a database under load): the re-listing announced by list_changed takes a while to land.
    let slow = false;
    const pins = new InMemorySchemaPinStore();
    const upsert = pins.upsert.bind(pins);
    pins.upsert = async (pin) => {
      if (slow) await new Promise((r) => setTimeout(r, 300));
      return upsert(pin);
    };
    const gateway = gatewayWith({ pins });
    gateway.upsertServer(httpEntry("remote", server.url));
    expect((await gateway.listTools(scope)).find((t) => t.name === "echo")?.status).toBe("accepted");
    slow = true;
    expect(await gateway.callTool("flip_schema", {}, scope)).toMatchObject({ ok: true, output: "variant 2" });
    // The announcement is in, its re-listing is not (its pins are still being written).
    await new Promise((r) => setTimeout(r, 50));
    const prepared = await gateway.prepare(scope);
    expect(prepared.tools.find((t) => t.name === "echo")?.status).toBe("held");
    expect(gateway.listCachedTools(scope).find((t) => t.name === "echo")?.status).toBe("held");
  });

  it("holds a tool whose schema changed (list_changed over http) until an operator accepts it", async () => {
    const server = await httpServer();
    const changes: string[] = [];
    const gateway = gatewayWith({ onToolsChanged: (e) => changes.push(e.serverId) });
    gateway.upsertServer(httpEntry("remote", server.url));
    const before = (await gateway.listTools(scope)).find((t) => t.name === "echo");
    expect(before?.status).toBe("accepted");

    expect(await gateway.callTool("flip_schema", {}, scope)).toMatchObject({ ok: true, output: "variant 2" });
    await waitFor(() => gateway.listCachedTools(scope).find((t) => t.name === "echo")?.status === "held");
    expect(changes).toContain("remote");
    const held = gateway.listCachedTools(scope).find((t) => t.name === "echo");
    expect(held).toMatchObject({ acceptedHash: before?.schemaHash });
    expect(held?.schemaHash).not.toBe(before?.schemaHash);
    expect(held?.inputSchema).toMatchObject({ properties: { upper: { type: "boolean" } } });
    // Other tools of the server are untouched.
    expect(gateway.listCachedTools(scope).find((t) => t.name === "add")?.status).toBe("accepted");

    const refused = await gateway.callTool("echo", { text: "x", upper: true }, scope);
    expect(refused).toMatchObject({
      ok: false,
      error: { code: "mcp_tool_held" },
      details: { schemaHash: held?.schemaHash },
    });
    // Admission asked and the operator approved this one call:
    expect(await gateway.callTool("echo", { text: "x", upper: true }, scope, { allowHeld: true })).toMatchObject({
      ok: true,
      output: "X",
    });

    await expect(gateway.acceptToolSchema("remote", "echo", before?.schemaHash ?? "")).rejects.toMatchObject({
      code: "mcp_pin_mismatch",
    });
    await gateway.acceptToolSchema("remote", "echo", held?.schemaHash ?? "");
    expect(gateway.listCachedTools(scope).find((t) => t.name === "echo")?.status).toBe("accepted");
    expect(await gateway.callTool("echo", { text: "y", upper: true }, scope)).toMatchObject({ ok: true, output: "Y" });
  });

  it("holds a tool when the server comes back with a different schema (stdio, new version)", async () => {
    const pins = new InMemorySchemaPinStore();
    const gateway = gatewayWith({ pins });
    gateway.upsertServer(stdioEntry("local"));
    await gateway.listTools(scope);
    gateway.upsertServer(stdioEntry("local", {}, 2));
    const echo = (await gateway.listTools(scope)).find((t) => t.name === "echo");
    expect(echo?.status).toBe("held");
    expect(await gateway.callTool("echo", { text: "x" }, scope)).toMatchObject({
      ok: false,
      error: { code: "mcp_tool_held" },
    });

    // An acceptance recorded elsewhere (another runner, the REST API) is picked up on the next prepare.
    const pin = await pins.get("local", "echo");
    await pins.upsert({ ...pin!, acceptedHash: pin!.schemaHash });
    await gateway.prepare(scope);
    expect(await gateway.callTool("echo", { text: "x" }, scope)).toMatchObject({ ok: true, output: "x" });
  });
});
