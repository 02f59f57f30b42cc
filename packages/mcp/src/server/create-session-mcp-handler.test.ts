import { createServer } from "node:http";
import type { Server as HttpServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { McpError } from "@modelcontextprotocol/sdk/types.js";
import type { ActionClass, ToolResult } from "@berth/protocol";
import { createMcpHttpListener, createSessionMcpHandler } from ".";
import type { ParkedCall, SessionMcpDeps, SessionMcpHandlerOptions, SessionToolCall, SessionToolDescriptor } from ".";

const TOKENS: Record<string, { userId: string }> = { "tok-1": { userId: "1" }, "tok-1_2": { userId: "1_2" } };

const SURFACE: SessionToolDescriptor[] = [
  {
    name: "read_file",
    description: "Reads a file.",
    parameters: { type: "object", properties: { path: { type: "string" } }, required: ["path"] },
    actionClass: "read",
  },
  {
    name: "bash",
    description: "Runs a command.",
    parameters: { type: "object", properties: { command: { type: "string" } } },
    actionClass: "execute",
  },
  {
    name: "fetch_url",
    description: "Fetches a URL.",
    parameters: { type: "object", properties: {} },
    actionClass: "network",
  },
];

/** Stands in for the runner: admission parks `bash` commands containing "deploy" until the test decides. */
class FakeRunner implements SessionMcpDeps {
  readonly calls: SessionToolCall[] = [];
  readonly decisions = new Map<string, (decision: "approve" | "deny") => void>();
  readonly parked: ParkedCall[] = [];
  #next = 0;

  async listTools(): Promise<readonly SessionToolDescriptor[]> {
    return SURFACE;
  }

  async callTool(call: SessionToolCall): Promise<ToolResult | ParkedCall> {
    this.calls.push(call);
    const command = String(call.args.command ?? "");
    if (call.tool === "read_file")
      return {
        ok: true,
        output: `contents of ${String(call.args.path)}`,
        details: { path: call.args.path },
        runId: "run_1",
      };
    if (command === "boom") throw new Error("database exploded: secret connection string");
    if (command === "false")
      return {
        ok: false,
        output: "bash failed: exit 1",
        error: { code: "exit_nonzero", message: "bash failed: exit 1" },
      };
    if (command.includes("deploy")) {
      const parked: ParkedCall = {
        status: "parked",
        approvalId: `apr_${++this.#next}`,
        text: `bash ${command}`,
        sha256: "a".repeat(64),
      };
      this.parked.push(parked);
      call.onParked?.(parked);
      const decision = await new Promise<"approve" | "deny" | "timeout">((resolve) => {
        const timer = setTimeout(() => resolve("timeout"), call.waitForApprovalMs);
        this.decisions.set(parked.approvalId, (d) => {
          clearTimeout(timer);
          resolve(d);
        });
      });
      if (decision === "timeout") return parked;
      if (decision === "deny")
        return {
          ok: false,
          output: `denied by operator (${parked.approvalId})`,
          error: { code: "approval_denied", message: "denied" },
        };
      return { ok: true, output: `ran ${command}`, runId: "run_2" };
    }
    return { ok: true, output: `ran ${command}` };
  }
}

let http: HttpServer | undefined;
const clients: Client[] = [];

afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
  await new Promise<void>((resolve) => (http ? http.close(() => resolve()) : resolve()));
  http = undefined;
});

async function serve(deps: SessionMcpDeps, opts: SessionMcpHandlerOptions = {}): Promise<string> {
  const handler = createSessionMcpHandler(deps, opts);
  const listener = createMcpHttpListener({
    handler,
    authenticate: async (token) => TOKENS[token] ?? null,
    canAccessSession: async (principal, sessionId) => sessionId === `sess-${principal.userId}`,
  });
  http = createServer(listener);
  await new Promise<void>((resolve) => http?.listen(0, "127.0.0.1", resolve));
  return `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
}

async function connect(base: string, sessionId: string, token?: string): Promise<Client> {
  const client = new Client({ name: "test-agent", version: "1.0.0" });
  const headers: Record<string, string> = token ? { authorization: `Bearer ${token}` } : {};
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${base}/mcp/${sessionId}`), { requestInit: { headers } }),
  );
  clients.push(client);
  return client;
}

function textOf(result: object): string {
  const content = "content" in result ? (result.content as Array<{ text?: string }>) : [];
  return content.map((c) => c.text ?? "").join("");
}

describe("session MCP server (/mcp/:sessionId)", () => {
  it("lists the session's direct tools with JSON schemas and annotations from the action class", async () => {
    const base = await serve(new FakeRunner());
    const client = await connect(base, "sess-1", "tok-1");
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(["read_file", "bash", "fetch_url"]);
    const byName = Object.fromEntries(tools.map((t) => [t.name, t]));
    expect(byName.read_file?.inputSchema).toMatchObject({ type: "object", required: ["path"] });
    expect(byName.read_file?.annotations).toMatchObject({ readOnlyHint: true, destructiveHint: false });
    expect(byName.bash?.annotations).toMatchObject({
      readOnlyHint: false,
      destructiveHint: true,
      openWorldHint: false,
    });
    expect(byName.fetch_url?.annotations).toMatchObject({ openWorldHint: true });
  });

  it("calls tools through the runner as an agent caller of the principal's session", async () => {
    const runner = new FakeRunner();
    const base = await serve(runner);
    const client = await connect(base, "sess-1", "tok-1");
    const result = await client.callTool({ name: "read_file", arguments: { path: "README.md" } });
    expect(textOf(result)).toBe("contents of README.md");
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toEqual({ path: "README.md" });
    expect(result._meta).toMatchObject({ "berth/runId": "run_1" });
    expect(runner.calls[0]).toMatchObject({ sessionId: "sess-1", userId: "1", tool: "read_file", caller: "agent" });
  });

  it("returns a tool failure as isError, not as a protocol error", async () => {
    const base = await serve(new FakeRunner());
    const client = await connect(base, "sess-1", "tok-1");
    const result = await client.callTool({ name: "bash", arguments: { command: "false" } });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toBe("bash failed: exit 1");
  });

  it("answers protocol faults as MCP errors and never leaks an internal message", async () => {
    const errors: unknown[] = [];
    const base = await serve(new FakeRunner(), { onError: (e) => errors.push(e) });
    const client = await connect(base, "sess-1", "tok-1");
    await expect(client.callTool({ name: "no_such_tool", arguments: {} })).rejects.toThrow(/Unknown tool/);
    const internal = await client.callTool({ name: "bash", arguments: { command: "boom" } }).catch((e: unknown) => e);
    expect(internal).toBeInstanceOf(McpError);
    expect(String((internal as Error).message)).not.toContain("secret");
    expect(errors).toHaveLength(1);
  });

  it("refuses a request without a token, with a bad token, or for another user's session", async () => {
    const base = await serve(new FakeRunner());
    await expect(connect(base, "sess-1")).rejects.toThrow();
    await expect(connect(base, "sess-1", "wrong")).rejects.toThrow();
    await expect(connect(base, "sess-1", "tok-1_2")).rejects.toThrow();

    const init = {
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "curl", version: "1" } },
    };
    const raw = await fetch(`${base}/mcp/sess-1`, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
      body: JSON.stringify(init),
    });
    expect(raw.status).toBe(401);
    expect(raw.headers.get("www-authenticate")).toMatch(/^Bearer/);
    const other = await fetch(`${base}/mcp/sess-1`, {
      method: "POST",
      headers: {
        authorization: "Bearer tok-1_2",
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
      },
      body: JSON.stringify(init),
    });
    expect(other.status).toBe(404);
  });

  it("holds a parked call open and returns the result once the operator approves", async () => {
    const runner = new FakeRunner();
    const base = await serve(runner, { approvalWaitMs: 10_000, heartbeatMs: 50 });
    const client = await connect(base, "sess-1", "tok-1");
    const progress: string[] = [];
    const call = client.callTool({ name: "bash", arguments: { command: "npm run deploy" } }, undefined, {
      onprogress: (p) => progress.push(p.message ?? ""),
      resetTimeoutOnProgress: true,
    });
    await waitFor(() => runner.decisions.has("apr_1") && progress.length > 0);
    expect(progress[0]).toBe("waiting for operator approval apr_1");
    runner.decisions.get("apr_1")?.("approve");
    const result = await call;
    expect(result.isError).toBeFalsy();
    expect(textOf(result)).toBe("ran npm run deploy");
    expect(runner.calls[0]?.waitForApprovalMs).toBe(10_000);
  });

  it("answers isError naming the approval id when no decision comes within the wait", async () => {
    const runner = new FakeRunner();
    const base = await serve(runner, { approvalWaitMs: 150 });
    const client = await connect(base, "sess-1", "tok-1");
    const result = await client.callTool({ name: "bash", arguments: { command: "deploy prod" } });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain("apr_1");
    expect(textOf(result)).toMatch(/approval/);
    expect(result._meta).toMatchObject({ "berth/approvalId": "apr_1", "berth/errorCode": "approval_pending" });
  });

  it("reports a denial as a tool failure", async () => {
    const runner = new FakeRunner();
    const base = await serve(runner);
    const client = await connect(base, "sess-1", "tok-1");
    const call = client.callTool({ name: "bash", arguments: { command: "deploy" } });
    await waitFor(() => runner.decisions.has("apr_1"));
    runner.decisions.get("apr_1")?.("deny");
    const result = await call;
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain("denied");
  });

  it("names an unknown tool once, without a doubled 'MCP error -32602:' prefix", async () => {
    const base = await serve(new FakeRunner());
    const client = await connect(base, "sess-1", "tok-1");
    const error = (await client.callTool({ name: "no_such_tool", arguments: {} }).catch((e: unknown) => e)) as McpError;
    expect(error.code).toBe(-32602);
    expect(error.message).toBe('MCP error -32602: Unknown tool: "no_such_tool"; tools/list names the tools of this session');
  });

  it("declares outputSchemas, and the SDK client validates structuredContent against them", async () => {
    const outputSchema = { type: "object", properties: { path: { type: "string" } }, required: ["path"] };
    const runner = new FakeRunner();
    runner.listTools = async () => SURFACE.map((t) => (t.name === "read_file" ? { ...t, outputSchema } : t));
    const base = await serve(runner);
    const client = await connect(base, "sess-1", "tok-1");
    const { tools } = await client.listTools();
    expect(tools.find((t) => t.name === "read_file")?.outputSchema).toEqual(outputSchema);
    const ok = await client.callTool({ name: "read_file", arguments: { path: "a.txt" } });
    expect(ok.structuredContent).toEqual({ path: "a.txt" });
    // A result that breaks its schema is refused by the client itself: the check is real.
    runner.callTool = async () => ({ ok: true, output: "x", details: { path: 7 } });
    await expect(client.callTool({ name: "read_file", arguments: { path: "a.txt" } })).rejects.toThrow(/output schema/);
  });

  it("annotates a tool that reaches others by what it can reach in the session", async () => {
    const reach: Record<string, ActionClass[]> = { "sess-1": ["read"], "sess-1_2": ["read", "write", "network"] };
    const runner = new FakeRunner();
    runner.listTools = async () => [
      ...SURFACE,
      { name: "gateway", description: "Finds and calls.", parameters: { type: "object" }, actionClass: "read", reachesOthers: true },
    ];
    const deps: SessionMcpDeps = { ...bind(runner), reach: async ({ sessionId }) => reach[sessionId] ?? [] };
    const base = await serve(deps);
    const readOnly = await connect(base, "sess-1", "tok-1");
    const narrow = (await readOnly.listTools()).tools.find((t) => t.name === "gateway");
    expect(narrow?.annotations).toMatchObject({ readOnlyHint: true, destructiveHint: false, openWorldHint: false });
    const wide = await connect(base, "sess-1_2", "tok-1_2");
    const gateway = (await wide.listTools()).tools.find((t) => t.name === "gateway");
    expect(gateway?.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: true, openWorldHint: true });
  });

  it("passes an upstream image and resource through to the MCP caller unchanged", async () => {
    const image = { type: "image" as const, data: "iVBORw0KGgo=", mimeType: "image/png", annotations: { audience: ["user" as const] } };
    const resource = { type: "resource" as const, resource: { uri: "file:///r.txt", mimeType: "text/plain", text: "hi" } };
    const runner = new FakeRunner();
    runner.callTool = async () => ({ ok: true, output: "[image image/png, 8 bytes]\nhi", content: [image, resource], structuredContent: { n: 1 } });
    const base = await serve(runner);
    const client = await connect(base, "sess-1", "tok-1");
    const result = await client.callTool({ name: "bash", arguments: { command: "x" } });
    expect(result.content).toEqual([image, resource]);
    expect(result.structuredContent).toEqual({ n: 1 });
  });

  it("starts every SSE response with a priming event (an id, empty data) for 2025-11-25 clients", async () => {
    const base = await serve(new FakeRunner());
    const res = await fetch(`${base}/mcp/sess-1`, {
      method: "POST",
      headers: { authorization: "Bearer tok-1", "content-type": "application/json", accept: "application/json, text/event-stream" },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "curl", version: "1" } },
      }),
    });
    expect(res.headers.get("content-type")).toMatch(/text\/event-stream/);
    const body = await res.text();
    expect(body).toMatch(/^id: \S+\ndata: \n\n/);
    expect(body).toContain('"serverInfo"');
  });

  it("answers GET with 405 (stateless: no standalone stream)", async () => {
    const base = await serve(new FakeRunner());
    const res = await fetch(`${base}/mcp/sess-1`, {
      headers: { authorization: "Bearer tok-1", accept: "text/event-stream" },
    });
    expect(res.status).toBe(405);
  });
});

async function waitFor(check: () => boolean, timeoutMs = 5_000): Promise<void> {
  const start = Date.now();
  while (!check()) {
    if (Date.now() - start > timeoutMs) throw new Error("condition not met in time");
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** The fake's methods as plain deps, so a test can add `reach` beside them. */
function bind(runner: FakeRunner): SessionMcpDeps {
  return { listTools: () => runner.listTools(), callTool: (c) => runner.callTool(c) };
}
