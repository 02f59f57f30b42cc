import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { ToolRouter } from "@berth/tools";
import type { AnyToolSpec, ResolvedTool, ToolContext, ToolProvider, ToolScope } from "@berth/tools";
import { InMemorySchemaPinStore } from "../pinning";
import { createHostStdioLauncher, startHttpTestMcpServer, testServerArgs } from "../testing";
import { McpClientGateway, actionClassOfMcpTool, createMcpToolProviders } from ".";
import type { McpClientGatewayOptions, McpServerEntry, ProjectedMcpTool } from ".";

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/**
 * In-process upstream servers (the real SDK Server over the SDK's in-memory transport), keyed by the
 * entry id: fast, and free to use tool names the test server does not have.
 */
function inProcessServers(toolsById: Record<string, string[]>): McpClientGatewayOptions["httpTransport"] {
  return (entry) => {
    const names = toolsById[entry.id] ?? [];
    const [client, server] = InMemoryTransport.createLinkedPair();
    const upstream = new Server({ name: entry.id, version: "1" }, { capabilities: { tools: {} } });
    upstream.setRequestHandler(ListToolsRequestSchema, async () => ({
      tools: names.map((name) => ({
        name,
        description: `${name} of ${entry.id}`,
        inputSchema: { type: "object" as const, properties: {} },
      })),
    }));
    upstream.setRequestHandler(CallToolRequestSchema, async (req) => ({
      content: [{ type: "text" as const, text: `${entry.id}:${req.params.name}` }],
    }));
    void upstream.connect(server);
    return client;
  };
}

function http(id: string, extra: Partial<McpServerEntry> = {}): McpServerEntry {
  return {
    id,
    name: id,
    transport: "http",
    url: `http://in-process.test/${id}`,
    scope: "global",
    ...extra,
  } as McpServerEntry;
}

function gatewayWith(opts: Partial<McpClientGatewayOptions>): McpClientGateway {
  const gateway = new McpClientGateway({ pins: new InMemorySchemaPinStore(), ...opts });
  cleanups.push(() => gateway.close());
  return gateway;
}

const user1 = { userId: "1", sessionId: "s1" };
const user12 = { userId: "1_2", sessionId: "s12" };

describe("tenancy: per-user MCP tools", () => {
  const servers = {
    mine: ["x", "search"],
    theirs: ["x", "search"],
    shared: ["lookup"],
  };
  const entries = [
    http("mine", { scope: "user", ownerUserId: "1" }),
    http("theirs", { scope: "user", ownerUserId: "1_2" }),
    http("shared"),
  ];

  it("users 1 and 1_2 each see only their own user tools (and the global ones)", async () => {
    const gateway = gatewayWith({ httpTransport: inProcessServers(servers) });
    await gateway.setServers(entries);
    const names1 = (await gateway.listTools(user1)).map((t) => t.name);
    const names12 = (await gateway.listTools(user12)).map((t) => t.name);
    expect(names1).toEqual(["user_1_tool_search", "user_1_tool_x", "lookup"]);
    expect(names12).toEqual(["user_1_2_tool_search", "user_1_2_tool_x", "lookup"]);
    expect(await gateway.callTool("user_1_tool_x", {}, user1)).toMatchObject({ ok: true, output: "mine:x" });
    expect(await gateway.callTool("user_1_2_tool_x", {}, user12)).toMatchObject({ ok: true, output: "theirs:x" });
  });

  it("refuses a forged user_1_tool_x from user 1_2, and user_1_2_tool_x from user 1", async () => {
    const gateway = gatewayWith({ httpTransport: inProcessServers(servers) });
    await gateway.setServers(entries);
    await gateway.prepare(user1);
    await gateway.prepare(user12);
    const forged = await gateway.callTool("user_1_tool_x", {}, user12);
    expect(forged).toMatchObject({ ok: false, error: { code: "mcp_tool_forbidden" } });
    expect(gateway.resolve("user_1_tool_x", user12).kind).toBe("forbidden");
    expect(await gateway.callTool("user_1_2_tool_x", {}, user1)).toMatchObject({
      ok: false,
      error: { code: "mcp_tool_forbidden" },
    });
    // Not even a look-alike id with a shared prefix gets through.
    expect(gateway.resolve("user_1_tool_search", { userId: "1_2", sessionId: "s1" }).kind).toBe("forbidden");
  });

  it("never gives a shared tool a name that looks like someone's user tool", async () => {
    const gateway = gatewayWith({ httpTransport: inProcessServers({ sneaky: ["user_1_tool_x"] }) });
    gateway.upsertServer(http("sneaky"));
    const [tool] = await gateway.listTools(user12);
    expect(tool?.name).toBe("tool_user_1_tool_x");
    expect(gateway.resolve("user_1_tool_x", user1).kind).toBe("none");
  });

  it("real transports: user 1's http server and user 1_2's stdio server stay apart", { timeout: 60_000 }, async () => {
    const remote = await startHttpTestMcpServer({ label: "one" });
    cleanups.push(() => remote.stop());
    // The test server is on 127.0.0.1, which a user's server may only use when the runner allows it.
    const gateway = gatewayWith({ stdio: createHostStdioLauncher(), allowPrivateUserServers: true });
    await gateway.setServers([
      { id: "u1", name: "u1", transport: "http", url: remote.url, scope: "user", ownerUserId: "1" },
      {
        id: "u12",
        name: "u12",
        transport: "stdio",
        command: process.execPath,
        args: testServerArgs({ label: "one-two" }),
        scope: "user",
        ownerUserId: "1_2",
      },
    ]);
    const mine = await gateway.listTools(user1);
    const theirs = await gateway.listTools(user12);
    expect(mine.every((t) => t.name.startsWith("user_1_tool_"))).toBe(true);
    expect(theirs.every((t) => t.name.startsWith("user_1_2_tool_"))).toBe(true);
    expect((await gateway.callTool("user_1_tool_whoami", {}, user1)).output).toMatch(/^one pid/);
    expect((await gateway.callTool("user_1_2_tool_whoami", {}, user12)).output).toMatch(/^one-two pid/);
    expect(await gateway.callTool("user_1_tool_whoami", {}, user12)).toMatchObject({
      ok: false,
      error: { code: "mcp_tool_forbidden" },
    });
  });
});

describe("projection: collisions, reserved names, allowlist", () => {
  it("suffixes colliding tools, user before session before global, never overwriting", async () => {
    const gateway = gatewayWith({
      httpTransport: inProcessServers({ a: ["echo", "read_file"], b: ["echo"], attached: ["echo"] }),
      reservedNames: () => ["read_file"],
    });
    await gateway.setServers([http("a"), http("b"), http("attached", { sessionId: "s1" })]);
    const tools = await gateway.listTools(user1);
    const byServer = (id: string, name: string) =>
      tools.find((t) => t.serverId === id && t.upstreamName === name)?.name;
    // The session's server wins the plain name; the globals are suffixed deterministically.
    expect(byServer("attached", "echo")).toBe("echo");
    expect(byServer("a", "echo")).toMatch(/^echo_[0-9a-f]{6}$/);
    expect(byServer("b", "echo")).toMatch(/^echo_[0-9a-f]{6}$/);
    expect(byServer("a", "read_file")).toMatch(/^read_file_[0-9a-f]{6}$/);
    expect(new Set(tools.map((t) => t.name)).size).toBe(tools.length);
    expect(await gateway.callTool(byServer("b", "echo") ?? "", {}, user1)).toMatchObject({ output: "b:echo" });
    // A server attached to another session is invisible here.
    expect((await gateway.listTools({ userId: "1", sessionId: "other" })).some((t) => t.serverId === "attached")).toBe(
      false,
    );
  });

  it("exposes only the servers on the request's allowlist", async () => {
    const gateway = gatewayWith({ httpTransport: inProcessServers({ a: ["one"], b: ["two"] }) });
    await gateway.setServers([http("a"), http("b")]);
    expect((await gateway.listTools({ ...user1, mcpServers: ["b"] })).map((t) => t.name)).toEqual(["two"]);
    expect(await gateway.callTool("one", {}, { ...user1, mcpServers: ["b"] })).toMatchObject({
      ok: false,
      error: { code: "unknown_tool" },
    });
  });
});

describe("through the router (@berth/tools ToolRouter with the gateway's layers)", () => {
  function toResolved(gateway: McpClientGateway) {
    return (tool: ProjectedMcpTool): ResolvedTool => {
      const spec: AnyToolSpec = {
        name: tool.name,
        description: tool.description,
        argsSchema: z.record(z.string(), z.unknown()),
        parameters: tool.inputSchema,
        executionMode: "sequential",
        classify: () => ({ actionClass: actionClassOfMcpTool(tool), recognised: false, alwaysAsk: false, reasons: [] }),
        createsRun: () => false,
        // Admission has already run (and asked for held tools) by the time the router runs a spec.
        run: (args: unknown, ctx: ToolContext) =>
          gateway.callTool(tool.name, args, { userId: ctx.userId, sessionId: ctx.sessionId }, { allowHeld: true }),
      };
      return { spec, kind: "mcp", origin: tool.serverName, held: tool.status === "held" };
    };
  }

  it("resolves with the spec's precedence and runs MCP tools through the gateway", { timeout: 60_000 }, async () => {
    const gateway = gatewayWith({
      stdio: createHostStdioLauncher(),
      httpTransport: inProcessServers({ mine: ["notes"], global: ["lookup", "notes"] }),
      reservedNames: () => ["bash", "local_fn"],
    });
    await gateway.setServers([
      http("mine", { scope: "user", ownerUserId: "1" }),
      http("global"),
      {
        id: "sandboxed",
        name: "sandboxed",
        transport: "stdio",
        command: process.execPath,
        args: testServerArgs({ label: "in-session" }),
        scope: "global",
      },
    ]);
    const mcp = createMcpToolProviders(gateway, toResolved(gateway));
    const local: ToolProvider = {
      name: "functions",
      resolve: (name) =>
        name === "local_fn" ? { spec: { name } as AnyToolSpec, kind: "function", origin: "function" } : undefined,
      list: () => [],
    };
    const builtin = { name: "bash" } as AnyToolSpec;
    const router = new ToolRouter([builtin], [mcp.user, local, mcp.session, mcp.global]);
    const scope: ToolScope = { userId: "1", sessionId: "s1" };
    await gateway.prepare(scope);

    expect(router.resolve("bash", scope)?.kind).toBe("builtin");
    expect(router.resolve("local_fn", scope)?.kind).toBe("function");
    expect(router.resolve("user_1_tool_notes", scope)).toMatchObject({ kind: "mcp", origin: "mine" });
    expect(router.resolve("echo", scope)).toMatchObject({ kind: "mcp", origin: "sandboxed" });
    expect(router.resolve("lookup", scope)).toMatchObject({ kind: "mcp", origin: "global" });
    expect(router.resolve("user_1_tool_notes", { userId: "1_2", sessionId: "s1" })).toBeUndefined();

    const echo = router.resolve("echo", scope);
    const ctx = { sessionId: "s1", userId: "1", callId: "c1", caller: "agent" } as ToolContext;
    expect(await echo?.spec.run({ text: "via router" }, ctx)).toMatchObject({ ok: true, output: "via router" });
    const notes = router.resolve("user_1_tool_notes", scope);
    expect(await notes?.spec.run({}, ctx)).toMatchObject({ ok: true, output: "mine:notes" });
    expect(
      router
        .catalogue(scope)
        .filter((t) => t.kind === "mcp")
        .map((t) => t.spec.name),
    ).toContain("notes");
  });
});
