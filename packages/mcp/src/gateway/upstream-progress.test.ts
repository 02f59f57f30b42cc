import { createRequire } from "node:module";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { afterEach, describe, expect, it } from "vitest";
import type { ToolProgress } from "@berth/protocol";
import { InMemorySchemaPinStore } from "../pinning";
import { createHostStdioLauncher } from "../testing";
import { McpClientGateway } from ".";
import type { McpClientGatewayOptions, McpScope, McpServerEntry } from ".";

// The reference server everything (a devDependency) over stdio: its long-running operation sends one
// progress notification per step, when the caller sent a progressToken.
const EVERYTHING = createRequire(import.meta.url).resolve("@modelcontextprotocol/server-everything/dist/index.js");
const TOOL = "trigger-long-running-operation";
const scope: McpScope = { userId: "1", sessionId: "sess-p" };

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function everythingGateway(opts: Partial<McpClientGatewayOptions> = {}): McpClientGateway {
  const gateway = new McpClientGateway({ pins: new InMemorySchemaPinStore(), stdio: createHostStdioLauncher(), backoff: { initialMs: 20, maxMs: 200 }, ...opts });
  cleanups.push(() => gateway.close());
  const entry = { id: "everything", name: "everything", transport: "stdio", command: process.execPath, args: [EVERYTHING, "stdio"], scope: "global" } as McpServerEntry;
  gateway.upsertServer(entry);
  return gateway;
}

describe("upstream progress, timeouts and cancellation (server-everything over stdio)", { timeout: 60_000 }, () => {
  it("forwards the upstream call's progress: as many notifications as a direct client gets", async () => {
    const args = { duration: 1.2, steps: 4 };
    const direct = new Client({ name: "direct", version: "1.0.0" });
    await direct.connect(new StdioClientTransport({ command: process.execPath, args: [EVERYTHING, "stdio"], stderr: "ignore" }));
    cleanups.push(() => direct.close());
    let directCount = 0;
    await direct.callTool({ name: TOOL, arguments: args }, undefined, { onprogress: () => void (directCount += 1) });
    expect(directCount).toBeGreaterThanOrEqual(3);

    const gateway = everythingGateway();
    const seen: ToolProgress[] = [];
    const result = await gateway.callTool(TOOL, args, scope, { onProgress: (p) => seen.push(p) });
    expect(result.ok, JSON.stringify(result)).toBe(true);
    // The last step's notification races the result on either path (a client drops progress that arrives after its
    // response), so each gets every step's notification but perhaps the last: both at least steps - 1.
    expect(seen.length).toBeGreaterThanOrEqual(Math.min(directCount, args.steps - 1));
    expect(seen.map((p) => p.progress)).toEqual(seen.map((_, i) => i + 1));
    expect(seen.every((p) => p.total === 4)).toBe(true);
  });

  it("restarts the call's timeout on each progress notification, even when the caller asked for none", async () => {
    const gateway = everythingGateway({ callTimeoutMs: 800 });
    // 2.4 s in all, a step every 0.4 s: three times the timeout, never 0.8 s without progress.
    const kept = await gateway.callTool(TOOL, { duration: 2.4, steps: 6 }, scope);
    expect(kept.ok, JSON.stringify(kept)).toBe(true);
    // One step of 1.6 s: nothing arrives within the timeout.
    const silent = await gateway.callTool(TOOL, { duration: 1.6, steps: 1 }, scope);
    expect(silent).toMatchObject({ ok: false, error: { code: "mcp_timeout" } });
    expect(silent.error?.message).toContain("within 800 ms");
  });

  it("ends a call at the total limit however much progress arrives", async () => {
    const gateway = everythingGateway({ callTimeoutMs: 800, callMaxTotalMs: 1_500 });
    const result = await gateway.callTool(TOOL, { duration: 4, steps: 20 }, scope);
    expect(result).toMatchObject({ ok: false, error: { code: "mcp_timeout" } });
    expect(result.error?.message).toMatch(/within 1500 ms in all/);
  });

  it("answers aborted as soon as the caller aborts, instead of waiting for the upstream result", async () => {
    const gateway = everythingGateway();
    await gateway.prepare(scope);
    const abort = new AbortController();
    setTimeout(() => abort.abort(), 300);
    const started = Date.now();
    const result = await gateway.callTool(TOOL, { duration: 5, steps: 5 }, scope, { signal: abort.signal });
    expect(result).toMatchObject({ ok: false, error: { code: "aborted" } });
    expect(Date.now() - started).toBeLessThan(2_500);
  });
});
