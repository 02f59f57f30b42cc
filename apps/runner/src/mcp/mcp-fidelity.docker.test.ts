import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult, McpError } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startEverythingServer, type EverythingServer } from "../testing/everything-server";
import { TEST_ADMIN_TOKEN, startTestRunner, type TestRunner } from "../testing/runner-test-kit";

let kit: TestRunner;
let everything: EverythingServer;
let serverId: string;
const clients: Client[] = [];

async function connect(url: string, headers: Record<string, string> = {}): Promise<Client> {
  const client = new Client({ name: "berth-fidelity-test", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }));
  clients.push(client);
  return client;
}

const berth = (sessionId: string) => connect(`${kit.url}/mcp/${sessionId}`, { authorization: `Bearer ${TEST_ADMIN_TOKEN}` });

beforeAll(async () => {
  kit = await startTestRunner();
  everything = await startEverythingServer();
  // Global (operator) servers may be on a loopback address; a user's may not.
  const registered = await kit.api<{ id: string }>("POST", "/api/mcp-servers", { name: "everything", transport: "http", url: everything.url, scope: "global" });
  if (registered.status !== 201) throw new Error(`register server-everything: ${registered.status} ${JSON.stringify(registered.body)}`);
  serverId = registered.body.id;
});

afterAll(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close().catch(() => undefined)));
  if (serverId) await kit?.api("DELETE", `/api/mcp-servers/${serverId}`);
  await everything?.stop();
  await kit?.close();
});

function ok(result: CallToolResult, what: string): Record<string, unknown> {
  expect(result.isError, `${what}: ${JSON.stringify(result.content).slice(0, 400)}`).toBeFalsy();
  expect(result.structuredContent, `${what} sent no structuredContent`).toBeDefined();
  return result.structuredContent!;
}

describe("MCP to the letter (real runner, real sandbox, real SDK clients)", () => {
  it("every built-in tool declares an outputSchema, and each one's structuredContent passes the SDK client's own validation", async () => {
    const session = await kit.createSession({ autonomy: "trusted" });
    const client = await berth(session);
    // The SDK client validates structuredContent against the outputSchema it listed (and refuses a
    // result without one): listing first is what arms that check.
    const { tools } = await client.listTools();
    for (const tool of tools) expect(tool.outputSchema, `${tool.name} has no outputSchema`).toMatchObject({ type: "object" });
    const names = new Set(tools.map((t) => t.name));
    const called = new Set<string>();
    const call = async (name: string, args: Record<string, unknown>): Promise<Record<string, unknown>> => {
      called.add(name);
      return ok((await client.callTool({ name, arguments: args })) as CallToolResult, `${name} ${JSON.stringify(args)}`);
    };

    await call("write_file", { path: "f.txt", content: "hello\nworld\n" });
    expect(await call("read_file", { path: "f.txt" })).toMatchObject({ path: "f.txt", content: "hello\nworld\n", totalLines: 2 });
    await call("read_file", { path: "f.txt", encoding: "base64", startLine: 1 });
    expect(await call("edit", { path: "f.txt", old_string: "world", new_string: "there" })).toMatchObject({ path: "f.txt", replacements: 1 });
    await call("apply_patch", { patch: "*** Begin Patch\n*** Add File: g.txt\n+added\n*** End Patch" });
    expect(await call("glob", { pattern: "*.txt" })).toMatchObject({ files: ["f.txt", "g.txt"] });
    await call("grep", { pattern: "hello" });
    // code_nav: every mode's details against its listed outputSchema (a union by mode).
    await call("write_file", { path: "src/nav.ts", content: "export function navigate(): void {}\n" });
    expect(await call("code_nav", { mode: "symbol", query: "navigate" })).toMatchObject({ mode: "symbol", total: 1 });
    for (const args of [{ mode: "path", query: "*.ts" }, { mode: "entries" }, { mode: "outline", query: "src/nav.ts" }, { mode: "deps", query: "src/nav.ts" }, { mode: "dependents", query: "src/nav.ts" }]) {
      expect(await call("code_nav", args)).toMatchObject({ mode: args.mode });
    }
    expect(await call("bash", { command: "echo hi" })).toMatchObject({ exitCode: 0, stdout: "hi\n" });
    const started = await call("bash", { action: "start", command: "cat" });
    const processId = started.processId as string;
    await call("bash", { action: "status", processId });
    await call("bash", { action: "list" });
    await call("bash", { action: "write", processId, input: "typed\n", closeStdin: true });
    await call("bash", { action: "logs", processId, offset: 0 });
    await call("bash", { action: "stop", processId });
    await call("write_file", { path: "s.sh", content: "echo from-script\n" });
    const script = await call("run_script", { interpreter: "sh", script: "s.sh" });
    expect(script).toMatchObject({ outcome: "succeeded" });
    const runId = ((await client.callTool({ name: "run_script", arguments: { interpreter: "sh", script: "s.sh", args: ["again"] } }))._meta as Record<string, string>)["berth/runId"]!;
    await call("gateway", { op: "find", query: "agents" });
    await call("gateway", { op: "describe", capability: "update_agents_md" });
    await call("gateway", { op: "call", capability: "update_agents_md", args: { action: "read" } });
    await call("monitor", { mode: "list" });
    await call("monitor", { mode: "tools" });
    await call("monitor", { mode: "status", runId });
    await call("monitor", { mode: "peek", runId });
    await call("monitor", { mode: "receipt", runId });
    await call("monitor", { mode: "wait", runId, timeoutMs: 5_000 });
    await call("monitor", { mode: "collect", runIds: [runId] });
    expect(await call("dispatch", { tasks: [{ tool: "read_file", args: { path: "g.txt" } }] })).toMatchObject({ succeeded: 1, failed: 0 });
    expect([...names].filter((n) => !called.has(n))).toEqual([]);
  });

  it("annotates gateway and dispatch by what they reach: read-only only in a read-only session", async () => {
    const hints = async (autonomy: string) => {
      const { tools } = await (await berth(await kit.createSession({ autonomy }))).listTools();
      return Object.fromEntries(tools.map((t) => [t.name, t.annotations]));
    };
    const normal = await hints("default");
    for (const name of ["gateway", "dispatch"]) {
      // update_agents_md writes, bash executes, server-everything's tools reach outside: not read-only.
      expect(normal[name], name).toMatchObject({ readOnlyHint: false, destructiveHint: true, openWorldHint: true });
    }
    expect(normal.read_file).toMatchObject({ readOnlyHint: true });
    const readOnly = await hints("read-only");
    for (const name of ["gateway", "dispatch"]) {
      expect(readOnly[name], name).toMatchObject({ readOnlyHint: true, destructiveHint: false, openWorldHint: false });
    }
  });

  it("passes server-everything's image, annotated content and structuredContent through unchanged; describe shows its outputSchema and annotations", async () => {
    const direct = await connect(everything.url);
    const upstream = (await direct.listTools()).tools;
    const session = await kit.createSession({ autonomy: "trusted" });
    const client = await berth(session);
    await client.listTools();
    const viaGateway = async (tool: string, args: Record<string, unknown>) => {
      const found = (await client.callTool({ name: "gateway", arguments: { op: "find", query: tool } })).structuredContent as { capabilities: { name: string }[] };
      const capability = found.capabilities.find((c) => c.name.endsWith(tool))?.name;
      expect(capability, `gateway find ${tool}`).toBeDefined();
      return { capability: capability!, result: (await client.callTool({ name: "gateway", arguments: { op: "call", capability, args } })) as CallToolResult };
    };

    const expected = (await direct.callTool({ name: "get-tiny-image", arguments: {} })) as CallToolResult;
    const image = await viaGateway("get-tiny-image", {});
    expect(image.result.isError).toBeFalsy();
    expect(image.result.content).toEqual(expected.content);
    const png = expected.content.find((c) => c.type === "image");
    expect(png).toMatchObject({ mimeType: "image/png" });
    // The call was a run (kind mcp): its page shows the image, which its log only names.
    const runId = (image.result._meta as Record<string, string> | undefined)?.["berth/runId"];
    expect(runId).toMatch(/^run_/);
    const run = await kit.api<{ run: { kind: string; details: { images?: unknown } } }>("GET", `/api/runs/${runId}`);
    expect(run.body.run.kind).toBe("mcp");
    expect(run.body.run.details.images).toEqual([{ mimeType: "image/png", data: (png as { data: string }).data }]);

    const annotatedArgs = { messageType: "error", includeImage: true };
    const annotated = await viaGateway("get-annotated-message", annotatedArgs);
    expect(annotated.result.content).toEqual(((await direct.callTool({ name: "get-annotated-message", arguments: annotatedArgs })) as CallToolResult).content);
    expect(annotated.result.content.some((c) => c.annotations !== undefined)).toBe(true);

    const structured = await viaGateway("get-structured-content", { location: "Chicago" });
    const directStructured = (await direct.callTool({ name: "get-structured-content", arguments: { location: "Chicago" } })) as CallToolResult;
    expect(structured.result.structuredContent).toEqual(directStructured.structuredContent);

    const described = (await client.callTool({ name: "gateway", arguments: { op: "describe", capability: structured.capability } })).structuredContent as Record<string, unknown>;
    const original = upstream.find((t) => t.name === "get-structured-content")!;
    expect(described.outputSchema).toEqual(original.outputSchema);
    expect(described.annotations).toEqual(original.annotations);
  });

  it("answers protocol faults in JSON-RPC form: -32700 for malformed JSON, 401 with WWW-Authenticate, one prefix on an unknown tool", async () => {
    const session = await kit.createSession({ autonomy: "default" });
    const headers = { "content-type": "application/json", accept: "application/json, text/event-stream" };
    const malformed = await fetch(`${kit.url}/mcp/${session}`, { method: "POST", headers: { ...headers, authorization: `Bearer ${TEST_ADMIN_TOKEN}` }, body: '{"jsonrpc":"2.0","id":1,' });
    expect(malformed.status).toBe(400);
    expect(await malformed.json()).toMatchObject({ jsonrpc: "2.0", id: null, error: { code: -32700 } });

    const anonymous = await fetch(`${kit.url}/mcp/${session}`, { method: "POST", headers, body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }) });
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get("www-authenticate")).toMatch(/^Bearer /);
    expect(await anonymous.json()).toMatchObject({ jsonrpc: "2.0", error: { code: -32000 } });

    const client = await berth(session);
    const error = (await client.callTool({ name: "no_such_tool", arguments: {} }).catch((e: unknown) => e)) as McpError;
    expect(error.code).toBe(-32602);
    expect(error.message.match(/MCP error/g)).toHaveLength(1);
  });
});
