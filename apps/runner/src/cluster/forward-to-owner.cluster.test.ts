import crypto from "node:crypto";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { io as connect, type Socket } from "socket.io-client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDatabase, createRepositories, type Repositories } from "@berth/db";
import { TEST_ADMIN_TOKEN, emitWithAck, type TestRunner } from "../testing/runner-test-kit";
import { startTwoRunners, type TwoRunners } from "../testing/two-runners";
import { setSessionOwner } from "../testing/set-session-owner";
import { WS_ECHO_SERVER } from "../testing/ws-echo-server";
import { removeByRunner } from "../testing/child-cluster";
import { FORWARD_MARKER_HEADER, ForwardMarker } from "./forward-marker";
import { until } from "../testing/until";

let two: TwoRunners;
let a: TestRunner;
let b: TestRunner;
let repos: Repositories;
let scratch: string;
let sessionId: string;
const sockets: Socket[] = [];

/** The id a runner runs under (two-runners.ts gives each its own). */
function idOf(runner: TestRunner): string {
  return runner === a ? runnerIds.a : runnerIds.b;
}
const suffix = `${process.pid}-${Math.floor(Math.random() * 1e6)}`;
const runnerIds = { a: `fa-${suffix}`, b: `fb-${suffix}` };

const own = (id: string, runner: { id: string; url: string }) => setSessionOwner(repos, id, runner);


/** B never attached the session's container: what it answered came from A. */
function onlyAHoldsIt(): void {
  expect(a.runner.driver.get(sessionId)?.status).toBe("ready");
  expect(b.runner.driver.get(sessionId)).toBeUndefined();
}

beforeAll(async () => {
  two = await startTwoRunners({ runnerIds });
  ({ a, b } = two);
  scratch = fs.mkdtempSync(path.join(os.tmpdir(), "berth-forward-test-"));
  repos = createRepositories(await createDatabase({ dataDir: scratch, databaseUrl: two.databaseUrl }));
  await repos.runners.register({ id: runnerIds.b, url: b.url, at: new Date() });
  sessionId = await a.createSession({ autonomy: "trusted" });
  await own(sessionId, { id: idOf(a), url: a.url });
}, 180_000);

afterAll(async () => {
  for (const socket of sockets) socket.disconnect();
  await repos?.close();
  await two?.close();
  // The 503 case hands the session to a runner that is not there: A's lease renewal may let go of its container
  // meanwhile (as it must when another runner holds the row), so it is removed by its label, not by A's delete.
  removeByRunner([], [runnerIds.a, runnerIds.b]);
  if (scratch) fs.rmSync(scratch, { recursive: true, force: true });
}, 120_000);

describe("a session created through runner A, driven through runner B (forwarded to its owner)", () => {
  it("REST tool calls: write_file then read_file, and bash", async () => {
    const written = await b.tool(sessionId, "write_file", { path: "from-b.txt", content: "written through B" });
    expect(written.status).toBe(200);
    const read = await b.tool<{ ok: boolean; output: string }>(sessionId, "read_file", { path: "from-b.txt" });
    expect(read.status).toBe(200);
    expect(read.body.output).toContain("written through B");
    const bash = await b.tool<{ ok: boolean; output: string }>(sessionId, "bash", { command: "echo $((6 * 7)) && cat from-b.txt" });
    expect(bash.body.ok).toBe(true);
    expect(bash.body.output).toContain("42");
    // A reads the same workspace: the file B wrote is A's.
    expect((await a.tool<{ output: string }>(sessionId, "read_file", { path: "from-b.txt" })).body.output).toContain("written through B");
    onlyAHoldsIt();
  });

  it("an MCP client (the SDK's Streamable HTTP transport) lists and calls the session's tools through B", async () => {
    const client = new Client({ name: "forward-test", version: "1.0.0" });
    const transport = new StreamableHTTPClientTransport(new URL(`${b.url}/mcp/${sessionId}`), {
      requestInit: { headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}` } },
    });
    await client.connect(transport);
    try {
      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name)).toEqual(expect.arrayContaining(["read_file", "write_file", "bash"]));
      const result = await client.callTool({ name: "read_file", arguments: { path: "from-b.txt" } });
      expect(result.isError).toBeFalsy();
      expect(JSON.stringify(result.content)).toContain("written through B");
    } finally {
      await client.close();
    }
    onlyAHoldsIt();
  });

  it("socket.io tool:call through B: the result through the ack, run:started on the socket, the run recorded by A", async () => {
    const socket = await b.socket();
    const started: { callId: string | null; runId: string; sessionId: string }[] = [];
    socket.on("run:started", (event: (typeof started)[number]) => started.push(event));
    const result = await emitWithAck<{ ok: boolean; output: string }>(socket, "tool:call", { sessionId, tool: "bash", args: { command: "echo socket-through-b" }, callId: "call-b-1" });
    expect(result.ok).toBe(true);
    expect(result.output).toContain("socket-through-b");
    await until(() => started.length > 0, "run:started");
    expect(started[0]).toMatchObject({ callId: "call-b-1", sessionId });
    const run = await a.api<{ run: { sessionId: string; tool: string; status: string }; toolCalls: { via: string; caller: string }[] }>("GET", `/api/runs/${started[0]!.runId}`);
    expect(run.body.run).toMatchObject({ sessionId, tool: "bash", status: "finished" });
    // Recorded as the socket's call, with the token's caller, exactly as on the owner.
    expect(run.body.toolCalls).toEqual([expect.objectContaining({ via: "socket", caller: "api" })]);
    onlyAHoldsIt();
  });

  it("a terminal opened, typed into, resized, read and closed through B by a person signed in to the IDE", async () => {
    const minted = await b.api<{ secret: string }>("POST", "/api/browser-sessions", { userAgent: "forward test" });
    expect(minted.status).toBe(201);
    const socket = connect(b.url, { extraHeaders: { cookie: `berth_browser=${minted.body.secret}` }, transports: ["websocket"], forceNew: true, reconnection: false });
    sockets.push(socket);
    await new Promise<void>((resolve, reject) => {
      socket.once("connect", () => resolve());
      socket.once("connect_error", reject);
    });
    const info = await emitWithAck<{ terminalId: string; runId: string; sessionId: string }>(socket, "terminal:open", { sessionId, cols: 80, rows: 24 });
    expect(info.sessionId).toBe(sessionId);
    let offset = 0;
    let text = "";
    socket.on("terminal:output", (event: { terminalId: string; offset: number; data: Buffer }, ack: () => void) => {
      if (event.terminalId !== info.terminalId) return;
      // Every byte once, in order, across the two runners.
      expect(event.offset).toBe(offset);
      offset += event.data.length;
      text += Buffer.from(event.data).toString("utf8");
      ack();
    });
    await emitWithAck(socket, "terminal:attach", { terminalId: info.terminalId, offset: 0 });
    await emitWithAck(socket, "terminal:input", { terminalId: info.terminalId, data: "echo typed-$((40 + 2))\n" });
    await until(() => text.includes("typed-42"), `the echo in the terminal (got ${JSON.stringify(text.slice(-200))})`);
    const resized = await emitWithAck<{ cols: number; rows: number }>(socket, "terminal:resize", { terminalId: info.terminalId, cols: 100, rows: 30 });
    expect(resized).toMatchObject({ cols: 100, rows: 30 });
    const listed = await emitWithAck<{ terminals: { terminalId: string }[] }>(socket, "terminal:list", { sessionId });
    expect(listed.terminals.map((t) => t.terminalId)).toContain(info.terminalId);
    expect(await emitWithAck(socket, "terminal:close", { terminalId: info.terminalId })).toEqual({ terminalId: info.terminalId, closed: true });
    // The terminal's run is A's, recorded as the person's.
    type RunBody = { run: { status: string; caller: string; kind: string } };
    await until(async () => (await a.api<RunBody>("GET", `/api/runs/${info.runId}`)).body.run.status === "finished", "the terminal's run to end");
    const run = await a.api<RunBody>("GET", `/api/runs/${info.runId}`);
    expect(run.body.run).toMatchObject({ caller: "browser", kind: "terminal" });
    onlyAHoldsIt();
  });

  it("a port preview through B: HTTP from a server in the container, and a WebSocket both ways", async () => {
    for (const [file, content] of [["hello-port.txt", "hi from the container"], ["ws-echo.js", WS_ECHO_SERVER]]) {
      expect((await b.tool(sessionId, "write_file", { path: file, content })).status).toBe(200);
    }
    for (const command of ["python3 -m http.server 8000 --bind 127.0.0.1", "node ws-echo.js"]) {
      expect((await b.tool(sessionId, "bash", { action: "start", command })).status).toBe(200);
    }
    const preview = (port: number, rest: string) => fetch(`${b.url}/sessions/${sessionId}/ports/${port}${rest}`, { headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}` } });
    await until(async () => (await preview(8000, "/")).status === 200, "python's http.server");
    expect(await (await preview(8000, "/hello-port.txt")).text()).toBe("hi from the container");
    await until(async () => (await preview(8001, "/")).status === 200, "the echo server");

    const socket = net.connect(b.runner.port, "127.0.0.1");
    await new Promise<void>((resolve) => socket.once("connect", resolve));
    const key = crypto.randomBytes(16).toString("base64");
    socket.write(
      [`GET /sessions/${sessionId}/ports/8001/ws HTTP/1.1`, `Host: 127.0.0.1:${b.runner.port}`, `Authorization: Bearer ${TEST_ADMIN_TOKEN}`, "Upgrade: websocket", "Connection: Upgrade", `Sec-WebSocket-Key: ${key}`, "Sec-WebSocket-Version: 13", "", ""].join("\r\n"),
    );
    let received = Buffer.alloc(0);
    socket.on("data", (chunk: Buffer) => (received = Buffer.concat([received, chunk])));
    await until(() => received.includes("\r\n\r\n"), "the 101 handshake");
    const [head = ""] = received.toString("latin1").split("\r\n\r\n");
    expect(head).toMatch(/^HTTP\/1\.1 101 /);
    expect(head).toContain(`Sec-WebSocket-Accept: ${crypto.createHash("sha1").update(`${key}258EAFA5-E914-47DA-95CA-C5AB0DC85B11`).digest("base64")}`);
    received = Buffer.alloc(0);
    const mask = crypto.randomBytes(4);
    const payload = Buffer.from("hello through b");
    socket.write(Buffer.concat([Buffer.from([0x81, 0x80 | payload.length]), mask, payload.map((byte, i) => byte ^ mask[i % 4]!)]));
    await until(() => received.length >= 2 + "echo: hello through b".length, "the echoed frame");
    expect(received.subarray(2).toString()).toBe("echo: hello through b");
    socket.destroy();
    onlyAHoldsIt();
  });

  it("a download through B streams the owner's tar.gz", async () => {
    const response = await fetch(`${b.url}/api/sessions/${sessionId}/download?path=.&format=tar.gz`, { headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}` } });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("application/gzip");
    expect(response.headers.get("content-disposition")).toBe('attachment; filename="workspace.tar.gz"');
    const bytes = Buffer.from(await response.arrayBuffer());
    expect([...bytes.subarray(0, 2)]).toEqual([0x1f, 0x8b]);
    onlyAHoldsIt();
  });

  it("a forged marker from a client is ignored: B still forwards, and B still refuses what the credential may not do", async () => {
    const forged = [`${idOf(a)} ${Date.now()} ${"0".repeat(64)}`, new ForwardMarker(idOf(a), "a-guessed-secret-0123456789abcdef0123456").sign(`/api/sessions/${sessionId}/tools/read_file`)];
    for (const marker of forged) {
      const response = await fetch(`${b.url}/api/sessions/${sessionId}/tools/read_file`, {
        method: "POST",
        headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}`, "content-type": "application/json", [FORWARD_MARKER_HEADER]: marker },
        body: JSON.stringify({ args: { path: "from-b.txt" } }),
      });
      expect(response.status).toBe(200);
      expect(((await response.json()) as { output: string }).output).toContain("written through B");
    }
    // Straight to A with a forged marker: A answers as for any client (it holds the session).
    const direct = await fetch(`${a.url}/api/sessions/${sessionId}/tools/read_file`, {
      method: "POST",
      headers: { authorization: "Bearer not-a-token", "content-type": "application/json", [FORWARD_MARKER_HEADER]: forged[0]! },
      body: JSON.stringify({ args: { path: "from-b.txt" } }),
    });
    expect(direct.status).toBe(401);
    onlyAHoldsIt();
  });

  it("answers 503 naming the session and the runner when the owner cannot be reached, over REST and over the socket", async () => {
    const closed = net.createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const deadUrl = `http://127.0.0.1:${(closed.address() as net.AddressInfo).port}`;
    await new Promise((resolve) => closed.close(resolve));
    const dead = `fd-${suffix}`;
    await own(sessionId, { id: dead, url: deadUrl });
    // B remembers A's hold for a moment (OWNER_CACHE_MS in forward-to-owner.ts) before it asks the database again.
    await new Promise((resolve) => setTimeout(resolve, 1_200));
    try {
      const response = await b.tool<{ error: { code: string; message: string } }>(sessionId, "read_file", { path: "from-b.txt" });
      expect(response.status).toBe(503);
      expect(response.body.error).toEqual({
        code: "sandbox_unavailable",
        message: `Session ${sessionId} is held by runner ${dead}, which cannot be reached (ECONNREFUSED); retry once it is back or another runner has adopted the session`,
      });
      const socket = await b.socket();
      await expect(emitWithAck(socket, "tool:call", { sessionId, tool: "read_file", args: { path: "from-b.txt" } })).rejects.toThrow(
        new RegExp(`^sandbox_unavailable: Session ${sessionId} is held by runner ${dead}, which cannot be reached`),
      );
    } finally {
      await own(sessionId, { id: idOf(a), url: a.url });
    }
  });
});
