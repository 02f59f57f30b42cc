import { type ChildProcessWithoutNullStreams, execFileSync, spawn } from "node:child_process";
import { mkdir, mkdtemp, readFile, realpath, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AGENT_PROTOCOL_VERSION, OUTPUT_FRAME_MARKER, OUTPUT_FRAME_PREFIX_BYTES, decodeOutputFramePrefix } from "@berth/protocol";
import { bundlePath } from "../../bundle-path.mjs";

/* eslint-disable @typescript-eslint/no-explicit-any -- arbitrary JSON read back from the wire */
type Message = {
  id?: number | string | null;
  method?: string;
  result?: any;
  error?: { code: number; message: string };
  params?: any;
};
/* eslint-enable @typescript-eslint/no-explicit-any */

/** Talks to the real bundled agent over its stdio, exactly as the runner does. */
class AgentProcess {
  /** Lines as parsed, and output frames as `output` messages with their bytes in params.data. */
  readonly messages: Message[] = [];
  readonly rawLines: string[] = [];
  private waiters: (() => void)[] = [];
  stderr = "";

  private pending = Buffer.alloc(0);

  constructor(readonly child: ChildProcessWithoutNullStreams) {
    child.stdout.on("data", (chunk: Buffer) => {
      this.pending = Buffer.concat([this.pending, chunk]);
      while (this.take()) for (const wake of this.waiters.splice(0)) wake();
    });
    child.stderr.on("data", (chunk: Buffer) => (this.stderr += chunk.toString()));
  }

  /** One line or one output frame off the front of what stdout sent, if it is all there. */
  private take(): boolean {
    if (this.pending[0] === OUTPUT_FRAME_MARKER) {
      if (this.pending.length < OUTPUT_FRAME_PREFIX_BYTES) return false;
      const lengths = decodeOutputFramePrefix(this.pending);
      if ("error" in lengths) throw new Error(lengths.error);
      const end = OUTPUT_FRAME_PREFIX_BYTES + lengths.headerBytes + lengths.dataBytes;
      if (this.pending.length < end) return false;
      const header = JSON.parse(this.pending.subarray(OUTPUT_FRAME_PREFIX_BYTES, OUTPUT_FRAME_PREFIX_BYTES + lengths.headerBytes).toString()) as object;
      const message = { method: "output", params: { ...header, data: Buffer.from(this.pending.subarray(end - lengths.dataBytes, end)) } };
      this.messages.push(message);
      this.pending = this.pending.subarray(end);
      return true;
    }
    const newline = this.pending.indexOf(10);
    if (newline === -1) return false;
    const line = this.pending.subarray(0, newline).toString();
    this.pending = this.pending.subarray(newline + 1);
    this.rawLines.push(line);
    this.messages.push(JSON.parse(line) as Message);
    return true;
  }

  send(line: string | Buffer): void {
    this.child.stdin.write(line);
  }

  async waitFor(predicate: (m: Message) => boolean, ms = 10_000): Promise<Message> {
    const deadline = Date.now() + ms;
    for (;;) {
      const found = this.messages.find(predicate);
      if (found) return found;
      if (Date.now() > deadline) throw new Error(`timed out; stderr: ${this.stderr}`);
      await new Promise<void>((resolve) => {
        this.waiters.push(resolve);
        setTimeout(resolve, 100);
      });
    }
  }

  async request(id: number, method: string, params?: unknown): Promise<Message> {
    this.send(`${JSON.stringify({ jsonrpc: "2.0", id, method, params })}\n`);
    return this.waitFor((m) => m.id === id);
  }
}

let base: string;
let root: string;
let agent: AgentProcess;

beforeAll(async () => {
  execFileSync(process.execPath, [path.join(path.dirname(bundlePath), "..", "build.mjs")]);
  base = await realpath(await mkdtemp(path.join(tmpdir(), "berth-agent-rpc-")));
  root = path.join(base, "ws");
  await mkdir(root);
  const child = spawn(process.execPath, [bundlePath], {
    env: { PATH: process.env.PATH, BERTH_WORKSPACE: root, BERTH_AGENT_STATE: path.join(base, "state") },
  });
  agent = new AgentProcess(child);
}, 60_000);

afterAll(async () => {
  agent.child.stdin.end();
  await new Promise((resolve) => agent.child.once("exit", resolve));
  await rm(base, { recursive: true, force: true });
});

describe("berth-agent over JSON-RPC stdio", () => {
  it("answers hello and ping", async () => {
    const hello = await agent.request(1, "agent.hello", { runnerVersion: "test" });
    expect(hello.result).toMatchObject({
      protocolVersion: AGENT_PROTOCOL_VERSION,
      workspace: root,
      agentVersion: "0.1.0",
    });
    expect(hello.result.uid).toBe(process.getuid?.());
    const ping = await agent.request(2, "agent.ping");
    expect(ping.result.rssBytes).toBeGreaterThan(0);
    expect(ping.result.runningProcesses).toBe(0);
  });

  it("survives bad lines with JSON-RPC errors and keeps stdout protocol-only", async () => {
    agent.send("this is not json\n");
    agent.send(`${JSON.stringify({ jsonrpc: "2.0", id: 10, method: 42 })}\n`);
    agent.send(`${JSON.stringify({ jsonrpc: "2.0", id: 11, method: "no.such" })}\n`);
    agent.send(`${JSON.stringify({ jsonrpc: "2.0", id: 12, method: "tool.call", params: { tool: "read_file" } })}\n`);
    expect((await agent.waitFor((m) => m.id === null && m.error?.code === -32700)).error?.message).toMatch(
      /Parse error/,
    );
    expect((await agent.waitFor((m) => m.id === 10)).error?.code).toBe(-32600);
    expect((await agent.waitFor((m) => m.id === 11)).error?.code).toBe(-32601);
    expect((await agent.waitFor((m) => m.id === 12)).error?.code).toBe(-32602);
    const hello = await agent.request(13, "agent.hello");
    expect(hello.result.protocolVersion).toBe(AGENT_PROTOCOL_VERSION);
    for (const line of agent.rawLines) expect(JSON.parse(line).jsonrpc).toBe("2.0");
  });

  it("names the field when a request line is not valid UTF-8", async () => {
    const head = Buffer.from(
      `{"jsonrpc":"2.0","id":20,"method":"tool.call","params":{"tool":"write_file","callId":"u1","args":{"path":"u.txt","content":"a`,
    );
    agent.send(Buffer.concat([head, Buffer.from([0xff, 0xfe]), Buffer.from(`b"}}}\n`)]));
    const reply = await agent.waitFor((m) => m.id === 20);
    expect(reply.result).toMatchObject({
      ok: false,
      error: { message: "Invalid arguments for write_file: content: contains invalid UTF-8" },
    });
  });

  it("runs tool calls, streams bash output, and reports unknown tools as results", async () => {
    await writeFile(path.join(root, "hello.txt"), "hi\n");
    const read = await agent.request(30, "tool.call", { tool: "read_file", callId: "r1", args: { path: "hello.txt" } });
    expect(read.result).toMatchObject({ ok: true, details: { content: "hi\n" } });
    const exec = await agent.request(31, "tool.call", {
      tool: "bash",
      callId: "b1",
      args: { command: "echo $GREETING" },
      env: { GREETING: "hey" },
    });
    expect(exec.result.details).toMatchObject({ exitCode: 0, stdout: "hey\n" });
    const out = await agent.waitFor((m) => m.method === "output" && m.params.callId === "b1");
    expect((out.params.data as Buffer).toString()).toBe("hey\n");
    const unknown = await agent.request(32, "tool.call", { tool: "teleport", callId: "t1", args: {} });
    expect(unknown.result).toMatchObject({
      ok: false,
      error: { code: "unknown_tool", message: "Unknown tool: teleport" },
    });
  });

  it("runs calls concurrently and aborts one by callId", async () => {
    agent.send(
      `${JSON.stringify({ jsonrpc: "2.0", id: 40, method: "tool.call", params: { tool: "bash", callId: "slow", args: { command: "sleep 20" } } })}\n`,
    );
    const fast = await agent.request(41, "tool.call", {
      tool: "bash",
      callId: "fast",
      args: { command: "echo quick" },
    });
    expect(fast.result.details.stdout).toBe("quick\n");
    const abort = await agent.request(42, "tool.abort", { callId: "slow" });
    expect(abort.result).toEqual({ aborted: true });
    const slow = await agent.waitFor((m) => m.id === 40);
    expect(slow.result).toMatchObject({ ok: false, error: { code: "aborted" } });
    expect((await agent.request(43, "tool.abort", { callId: "slow" })).result).toEqual({ aborted: false });
  });

  it("answers everything already sent when stdin closes, in program order for writes then reads", async () => {
    const ws = path.join(base, "ws2");
    await mkdir(ws);
    const child = spawn(process.execPath, [bundlePath], {
      env: { PATH: process.env.PATH, BERTH_WORKSPACE: ws, BERTH_AGENT_STATE: path.join(base, "state2") },
    });
    const lines = [
      {
        jsonrpc: "2.0",
        id: 1,
        method: "tool.call",
        params: { tool: "write_file", callId: "w", args: { path: "deep/dir/f.txt", content: "written\n" } },
      },
      {
        jsonrpc: "2.0",
        id: 2,
        method: "tool.call",
        params: { tool: "read_file", callId: "r", args: { path: "deep/dir/f.txt" } },
      },
      {
        jsonrpc: "2.0",
        id: 3,
        method: "tool.call",
        params: { tool: "bash", callId: "b", args: { command: "cat deep/dir/f.txt" } },
      },
    ];
    const proc = new AgentProcess(child);
    child.stdin.end(lines.map((l) => JSON.stringify(l)).join("\n") + "\n");
    const code = await new Promise((resolve) => child.once("exit", resolve));
    expect(code).toBe(0);
    const replies = proc.messages.filter((m) => m.id !== undefined);
    const byId = new Map(replies.map((m) => [m.id, m]));
    expect(byId.get(1)?.result.ok).toBe(true);
    expect(byId.get(2)?.result.details.content).toBe("written\n");
    expect(byId.get(3)?.result.details.stdout).toBe("written\n");
  });

  it("stops its background processes when it gets SIGTERM", async () => {
    const ws = path.join(base, "ws3");
    await mkdir(ws);
    const child = spawn(process.execPath, [bundlePath], {
      env: { PATH: process.env.PATH, BERTH_WORKSPACE: ws, BERTH_AGENT_STATE: path.join(base, "state3") },
    });
    const proc = new AgentProcess(child);
    const started = await proc.request(1, "tool.call", {
      tool: "bash",
      callId: "s",
      args: { action: "start", command: "sleep 60" },
    });
    const pid = started.result.details.pid as number;
    child.kill("SIGTERM");
    await new Promise((resolve) => child.once("exit", resolve));
    const stat = await readFile(`/proc/${pid}/stat`, "utf8").catch(() => "");
    expect(stat === "" || stat.slice(stat.lastIndexOf(")") + 2)[0] === "Z").toBe(true);
  });
});
