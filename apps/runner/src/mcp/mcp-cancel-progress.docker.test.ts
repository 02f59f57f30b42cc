import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startEverythingServer } from "../testing/everything-server";
import { TEST_ADMIN_TOKEN, emitWithAck, startTestRunner, type TestRunner } from "../testing/runner-test-kit";

type ToolBody = { ok: boolean; output: string; details?: Record<string, unknown>; error?: { code: string; message: string }; runId?: string };
type RunView = { id: string; tool: string; status: string; outcome: string | null; receiptId: string | null; args: { command?: string } };

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const LONG_OP = "trigger-long-running-operation";

let kit: TestRunner;
let session: string;
const clients: Client[] = [];

async function mcpClient(sessionId = session, token = TEST_ADMIN_TOKEN): Promise<Client> {
  const client = new Client({ name: "berth-cancel-progress-test", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${kit.url}/mcp/${sessionId}`), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
  clients.push(client);
  return client;
}

async function runsOf(sessionId: string): Promise<RunView[]> {
  const { body } = await kit.api<{ runs: RunView[] }>("GET", `/api/runs?sessionId=${sessionId}`);
  return body.runs;
}

async function until<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(100);
  }
}

async function runningRun(sessionId: string, marker: string): Promise<RunView> {
  return until(`the run of ${marker}`, async () => (await runsOf(sessionId)).find((r) => r.status === "running" && r.args.command?.includes(marker)));
}

async function exists(sessionId: string, path: string): Promise<boolean> {
  const { body } = await kit.tool<ToolBody>(sessionId, "bash", { command: `test -e ${path} && echo yes || echo no` });
  return String((body.details as { stdout?: string }).stdout).trim() === "yes";
}


beforeAll(async () => {
  kit = await startTestRunner();
  session = await kit.createSession({ autonomy: "trusted" });
});
afterAll(async () => {
  for (const client of clients) await client.close().catch(() => undefined);
  await kit?.close();
});

describe("cancellation end to end (real SDK client, runner and sandbox)", () => {
  it("an MCP client's notifications/cancelled kills the command: the file is never written, the run is aborted and sealed", async () => {
    const client = await mcpClient();
    const abort = new AbortController();
    const call = client.callTool({ name: "bash", arguments: { command: "sleep 6; echo ran > cancelled-mcp.txt" } }, undefined, { signal: abort.signal, timeout: 60_000 });
    const run = await runningRun(session, "cancelled-mcp.txt");
    await sleep(1_000);
    abort.abort("the user changed their mind");
    await expect(call).rejects.toThrow();
    await sleep(8_000);
    expect(await exists(session, "cancelled-mcp.txt")).toBe(false);
    const ended = (await runsOf(session)).find((r) => r.id === run.id);
    expect(ended).toMatchObject({ status: "finished", outcome: "aborted" });
    expect(ended?.receiptId).toBeTruthy();
  });

  it("an HTTP caller that hangs up aborts its call", async () => {
    const abort = new AbortController();
    const call = fetch(`${kit.url}/api/sessions/${session}/tools/bash`, {
      method: "POST",
      headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}`, "content-type": "application/json" },
      body: JSON.stringify({ args: { command: "sleep 6; echo ran > cancelled-http.txt" } }),
      signal: abort.signal,
    });
    const run = await runningRun(session, "cancelled-http.txt");
    await sleep(1_000);
    abort.abort();
    await expect(call).rejects.toThrow();
    const ended = await until("the aborted run", async () => (await runsOf(session)).find((r) => r.id === run.id && r.status === "finished"));
    expect(ended.outcome).toBe("aborted");
    await sleep(6_000);
    expect(await exists(session, "cancelled-http.txt")).toBe(false);
  });

  it("POST /api/runs/:id/cancel (the IDE's Stop) aborts a running run; 409 once it is not running; another developer gets 404", async () => {
    const call = kit.tool<ToolBody>(session, "bash", { command: "sleep 6; echo ran > stopped-http.txt" });
    const run = await runningRun(session, "stopped-http.txt");
    const dev = await kit.api<{ id: string }>("POST", "/api/users", { name: "other-dev", role: "developer" });
    const devToken = (await kit.api<{ token: string }>("POST", "/api/tokens", { userId: dev.body.id })).body.token;
    expect((await kit.api("POST", `/api/runs/${run.id}/cancel`, undefined, devToken)).status).toBe(404);

    const cancelled = await kit.api<{ runId: string; status: string; outcome: string }>("POST", `/api/runs/${run.id}/cancel`);
    expect(cancelled.status).toBe(200);
    expect(cancelled.body).toMatchObject({ runId: run.id, status: "finished", outcome: "aborted" });
    const { body } = await call;
    expect(body).toMatchObject({ ok: false, error: { code: "aborted" }, runId: run.id });
    const again = await kit.api<{ error: { code: string; message: string } }>("POST", `/api/runs/${run.id}/cancel`);
    expect(again.status).toBe(409);
    expect(again.body.error.message).toContain("not running");
    await sleep(6_000);
    expect(await exists(session, "stopped-http.txt")).toBe(false);
  });

  it("cancelling a background process's run stops the process: the run ends aborted", async () => {
    const started = await kit.tool<ToolBody>(session, "bash", { action: "start", command: "sleep 30; echo ran > stopped-process.txt" });
    expect(started.body.ok, JSON.stringify(started.body)).toBe(true);
    const runId = started.body.runId!;
    const cancelled = await kit.api<{ runId: string; status: string; outcome: string }>("POST", `/api/runs/${runId}/cancel`);
    expect(cancelled.status, JSON.stringify(cancelled.body)).toBe(200);
    expect(cancelled.body).toMatchObject({ runId, status: "finished", outcome: "aborted" });
    const processId = started.body.details?.processId as string;
    const status = await kit.tool<ToolBody>(session, "bash", { action: "status", processId });
    expect(status.body.details).toMatchObject({ status: "STOPPED" });
  });

  it("socket run:cancel aborts a running run script and acks the outcome; a finished run is an error in the ack", async () => {
    const socket = await kit.socket();
    await kit.tool(session, "write_file", { path: "stop-me.sh", content: "sleep 6\necho ran > stopped-socket.txt\n" });
    const call = kit.tool<ToolBody>(session, "run_script", { interpreter: "bash", script: "stop-me.sh", timeoutMs: 60_000 });
    const run = await until("the run_script run", async () => (await runsOf(session)).find((r) => r.tool === "run_script" && r.status === "running"));
    const result = await emitWithAck<{ runId: string; outcome: string }>(socket, "run:cancel", { runId: run.id });
    expect(result).toMatchObject({ runId: run.id, outcome: "aborted" });
    await expect(emitWithAck(socket, "run:cancel", { runId: run.id })).rejects.toThrow(/conflict/);
    await expect(emitWithAck(socket, "run:cancel", {})).rejects.toThrow(/bad_request/);
    expect((await call).body).toMatchObject({ ok: false, runId: run.id, details: { outcome: "aborted" } });
    await sleep(6_000);
    expect(await exists(session, "stopped-socket.txt")).toBe(false);
  });
});

describe("progress end to end", () => {
  it("a 3 s bash sends at least 2 progress notifications with the bytes seen and the last line", async () => {
    const client = await mcpClient();
    const seen: { progress: number; message?: string }[] = [];
    const result = await client.callTool({ name: "bash", arguments: { command: "for i in 1 2 3; do echo line-$i; sleep 1; done" } }, undefined, {
      onprogress: (p) => void seen.push(p),
      timeout: 60_000,
    });
    expect(result.isError).toBeFalsy();
    expect(seen.length).toBeGreaterThanOrEqual(2);
    expect(seen.map((p) => p.progress)).toEqual([...seen.map((p) => p.progress)].sort((a, b) => a - b));
    expect(seen.some((p) => /line-2/.test(p.message ?? ""))).toBe(true);
    expect(seen.at(-1)?.message).toMatch(/^\d+\.\ds, \d+ bytes/);
    console.info(`progress: ${seen.length} notifications for a 3 s bash; last: ${seen.at(-1)?.message ?? ""}`);
  });

  it("run_script reports progress from its live output too", async () => {
    const client = await mcpClient();
    await kit.tool(session, "write_file", { path: "count.py", content: "import time\nfor i in range(3):\n    print(f'step-{i}', flush=True)\n    time.sleep(0.7)\n" });
    const seen: { progress: number; message?: string }[] = [];
    const result = await client.callTool({ name: "run_script", arguments: { interpreter: "python3", script: "count.py" } }, undefined, { onprogress: (p) => void seen.push(p), timeout: 60_000 });
    expect(result.isError, JSON.stringify(result)).toBeFalsy();
    expect(seen.length).toBeGreaterThanOrEqual(2);
    expect(seen.some((p) => /step-1/.test(p.message ?? ""))).toBe(true);
  });

  it("dispatch reports the tasks done, with the task count as total", async () => {
    // A plan of two tasks asks below yolo; this test is about its progress, not its approval.
    const yolo = await kit.createSession({ autonomy: "yolo" });
    const client = await mcpClient(yolo);
    const seen: { progress: number; total?: number; message?: string }[] = [];
    const tasks = [
      { tool: "bash", args: { command: "sleep 0.6; echo first" } },
      { tool: "bash", args: { command: "sleep 0.6; echo second" } },
      { tool: "bash", args: { command: "sleep 0.6; echo third" } },
    ];
    const result = await client.callTool({ name: "dispatch", arguments: { topology: "sequential", tasks } }, undefined, { onprogress: (p) => void seen.push(p), timeout: 60_000 });
    expect(result.isError, JSON.stringify(result)).toBeFalsy();
    const done = seen.filter((p) => p.total === 3);
    expect(done.map((p) => p.progress)).toEqual([1, 2, 3].slice(0, done.length));
    expect(done.length).toBeGreaterThanOrEqual(2);
    expect(done[0]?.message).toMatch(/1\/3 tasks done; task1 bash ok/);
  });

  it("forwards server-everything's progress through gateway with the caller's token: at least as many as a direct client gets; cancelling cancels upstream", async () => {
    const everything = await startEverythingServer();
    try {
      const direct = new Client({ name: "direct", version: "1.0.0" });
      await direct.connect(new StreamableHTTPClientTransport(new URL(everything.url)));
      clients.push(direct);
      const args = { duration: 2, steps: 4 };
      let directCount = 0;
      await direct.callTool({ name: LONG_OP, arguments: args }, undefined, { onprogress: () => void (directCount += 1) });
      expect(directCount).toBeGreaterThanOrEqual(3);

      const registered = await kit.api<{ id: string }>("POST", "/api/mcp-servers", { name: "everything", transport: "http", url: everything.url, scope: "global" });
      expect(registered.status, JSON.stringify(registered.body)).toBe(201);
      const found = await kit.tool<ToolBody>(session, "gateway", { op: "find", query: LONG_OP });
      const capability = (found.body.details as { capabilities: { name: string }[] }).capabilities.find((c) => c.name.includes("long"))?.name;
      expect(capability, JSON.stringify(found.body)).toBeDefined();

      const client = await mcpClient();
      const seen: { progress: number; total?: number }[] = [];
      const result = await client.callTool({ name: "gateway", arguments: { op: "call", capability, args } }, undefined, { onprogress: (p) => void seen.push(p), timeout: 60_000 });
      expect(result.isError, JSON.stringify(result)).toBeFalsy();
      expect(seen.length).toBeGreaterThanOrEqual(directCount);
      console.info(`progress: server-everything ${LONG_OP} ${JSON.stringify(args)}: ${directCount} to a direct client, ${seen.length} through Berth`);
      expect(seen.some((p) => p.total === 4)).toBe(true);

      const abort = new AbortController();
      const cancelled = client.callTool({ name: "gateway", arguments: { op: "call", capability, args: { duration: 8, steps: 8 } } }, undefined, { signal: abort.signal, timeout: 60_000 });
      await sleep(1_500);
      abort.abort();
      await expect(cancelled).rejects.toThrow();
      await until("the upstream cancellation", async () => (everything.received.includes("notifications/cancelled") ? true : undefined), 5_000);
      const mcpRun = await until("the aborted mcp run", async () => (await runsOf(session)).find((r) => r.tool === capability && r.outcome === "aborted"));
      expect(mcpRun.status).toBe("finished");
      await kit.api("DELETE", `/api/mcp-servers/${registered.body.id}`);
    } finally {
      await everything.stop();
    }
  });
});
