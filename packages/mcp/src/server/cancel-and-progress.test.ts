import { createServer, type Server as HttpServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { ToolResult } from "@berth/protocol";
import { createMcpHttpListener, createSessionMcpHandler } from ".";
import type { SessionMcpDeps, SessionToolCall, SessionToolDescriptor } from ".";

const SURFACE: SessionToolDescriptor[] = [{ name: "bash", description: "Runs a command.", parameters: { type: "object", properties: {} }, actionClass: "execute" }];
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

let http: HttpServer | undefined;
const clients: Client[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
  http?.closeAllConnections();
  await new Promise<void>((resolve) => (http ? http.close(() => resolve()) : resolve()));
  http = undefined;
});

/** Stands in for the runner: a call runs until its signal aborts, reporting progress every 50 ms. */
class SlowRunner implements SessionMcpDeps {
  readonly ended: { tool: string; reason: string }[] = [];
  async listTools(): Promise<readonly SessionToolDescriptor[]> {
    return SURFACE;
  }
  async callTool(call: SessionToolCall): Promise<ToolResult> {
    const steps = Number(call.args.steps ?? 1_000);
    for (let i = 1; i <= steps; i++) {
      if (call.signal.aborted) {
        this.ended.push({ tool: call.tool, reason: String(call.signal.reason) });
        return { ok: false, output: "aborted", error: { code: "aborted", message: "Command aborted" } };
      }
      call.onProgress?.({ progress: i * 10, message: `step ${i}` });
      await sleep(50);
    }
    return { ok: true, output: "done" };
  }
}

async function connect(deps: SessionMcpDeps): Promise<Client> {
  const listener = createMcpHttpListener({ handler: createSessionMcpHandler(deps), authenticate: async (token) => (token === "tok" ? { userId: "1" } : null) });
  http = createServer(listener);
  await new Promise<void>((resolve) => http?.listen(0, "127.0.0.1", resolve));
  const url = new URL(`http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp/sess-1`);
  const client = new Client({ name: "test-agent", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(url, { requestInit: { headers: { authorization: "Bearer tok" } } }));
  clients.push(client);
  return client;
}

describe("the stateless MCP endpoint: cancellation and progress (real SDK client)", () => {
  it("a client's notifications/cancelled, sent in its own POST, aborts the call it names", async () => {
    const runner = new SlowRunner();
    const client = await connect(runner);
    const abort = new AbortController();
    const call = client.callTool({ name: "bash", arguments: {} }, undefined, { signal: abort.signal });
    await sleep(200);
    abort.abort("changed my mind");
    await expect(call).rejects.toThrow();
    for (let i = 0; i < 40 && runner.ended.length === 0; i++) await sleep(50);
    expect(runner.ended).toEqual([{ tool: "bash", reason: expect.stringContaining("cancelled by the client: changed my mind") }]);
    // The connection stays usable for the next call.
    expect((await client.callTool({ name: "bash", arguments: { steps: 1 } })).isError).toBeFalsy();
  });

  it("sends the tool's progress with the caller's token, at most 4 a second, always increasing", async () => {
    const client = await connect(new SlowRunner());
    const seen: { progress: number; message?: string }[] = [];
    const started = performance.now();
    // 20 updates over ~1 s.
    const result = await client.callTool({ name: "bash", arguments: { steps: 20 } }, undefined, { onprogress: (p) => void seen.push(p) });
    const seconds = (performance.now() - started) / 1000;
    expect(result.isError).toBeFalsy();
    expect(seen.length).toBeGreaterThanOrEqual(3);
    expect(seen.length).toBeLessThanOrEqual(Math.ceil(seconds * 4) + 1);
    expect(seen.map((p) => p.progress)).toEqual([...seen.map((p) => p.progress)].sort((a, b) => a - b));
    expect(new Set(seen.map((p) => p.progress)).size).toBe(seen.length);
  });

  it("sends no progress to a caller that did not ask for it", async () => {
    const runner = new SlowRunner();
    const client = await connect(runner);
    let count = 0;
    client.setNotificationHandler((await import("@modelcontextprotocol/sdk/types.js")).ProgressNotificationSchema, () => void (count += 1));
    expect((await client.callTool({ name: "bash", arguments: { steps: 6 } })).isError).toBeFalsy();
    expect(count).toBe(0);
  });
});
