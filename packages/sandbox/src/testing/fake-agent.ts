import { PassThrough } from "node:stream";
import { AGENT_PROTOCOL_VERSION, encodeOutputFrameHead, type OutputChunkHeader } from "@berth/protocol";
import type { AgentStreams } from "../agent-connection";

export interface FakeAgentOptions {
  protocolVersion?: number;
  /** Never answer anything (a hung agent). */
  silent?: boolean;
}

/**
 * An in-process stand-in for berth-agent speaking the same newline-delimited JSON-RPC, for unit tests of
 * the connection. Tools: `echo` (returns its args as output), `sleep {ms}` (honours tool.abort),
 * `emit {chunks}` (sends output frames for its callId, then returns).
 */
export class FakeAgent implements AgentStreams {
  readonly stdin = new PassThrough();
  readonly stdout = new PassThrough();
  readonly received: unknown[] = [];
  private readonly sleeping = new Map<string, () => void>();
  private buffer = "";

  constructor(private readonly opts: FakeAgentOptions = {}) {
    this.stdin.setEncoding("utf8");
    this.stdin.on("data", (chunk: string) => {
      this.buffer += chunk;
      let nl = this.buffer.indexOf("\n");
      while (nl !== -1) {
        const line = this.buffer.slice(0, nl);
        this.buffer = this.buffer.slice(nl + 1);
        if (line.trim()) this.onLine(line);
        nl = this.buffer.indexOf("\n");
      }
    });
  }

  /** Writes a raw line to stdout, as a misbehaving agent would. */
  sendRaw(line: string): void {
    this.stdout.write(`${line}\n`);
  }

  notify(method: string, params: unknown): void {
    this.sendRaw(JSON.stringify({ jsonrpc: "2.0", method, params }));
  }

  /** One chunk of live output as a binary frame, as the agent sends it. */
  output(header: OutputChunkHeader, data: Buffer): void {
    this.stdout.write(Buffer.concat([encodeOutputFrameHead(header, data.length), data]));
  }

  /** The agent dies: stdout ends, as when its container is killed. */
  crash(): void {
    this.stdout.end();
  }

  private reply(id: unknown, result: unknown): void {
    this.sendRaw(JSON.stringify({ jsonrpc: "2.0", id, result }));
  }

  private onLine(line: string): void {
    const msg = JSON.parse(line) as { id: number; method: string; params: Record<string, unknown> };
    this.received.push(msg);
    if (this.opts.silent) return;
    switch (msg.method) {
      case "agent.hello":
        return this.reply(msg.id, {
          agentVersion: "fake-1",
          protocolVersion: this.opts.protocolVersion ?? AGENT_PROTOCOL_VERSION,
          pid: 1,
          uid: 1000,
          node: process.version,
          workspace: "/workspace",
        });
      case "agent.ping":
        return this.reply(msg.id, { now: Date.now(), rssBytes: 1234, runningProcesses: 0 });
      case "tool.abort": {
        const wake = this.sleeping.get(String(msg.params.callId));
        wake?.();
        return this.reply(msg.id, { aborted: wake !== undefined });
      }
      case "tool.call":
        return this.toolCall(msg.id, msg.params);
      default:
        this.sendRaw(
          JSON.stringify({
            jsonrpc: "2.0",
            id: msg.id,
            error: { code: -32601, message: `Unknown method ${msg.method}` },
          }),
        );
    }
  }

  private toolCall(id: number, params: Record<string, unknown>): void {
    const callId = String(params.callId);
    const args = (params.args ?? {}) as Record<string, unknown>;
    if (params.tool === "echo") return this.reply(id, { ok: true, output: JSON.stringify(args) });
    if (params.tool === "emit") {
      const chunks = (args.chunks as string[] | undefined) ?? [];
      let offset = 0;
      for (const chunk of chunks) {
        this.output({ callId, stream: "stdout", offset }, Buffer.from(chunk));
        offset += Buffer.byteLength(chunk);
      }
      return this.reply(id, { ok: true, output: chunks.join("") });
    }
    if (params.tool === "sleep") {
      const timer = setTimeout(
        () => {
          this.sleeping.delete(callId);
          this.reply(id, { ok: true, output: "slept" });
        },
        Number(args.ms ?? 0),
      );
      this.sleeping.set(callId, () => {
        clearTimeout(timer);
        this.sleeping.delete(callId);
        this.reply(id, { ok: false, output: "aborted", error: { code: "aborted", message: "aborted" } });
      });
      return;
    }
    if (params.tool === "bad-result") return this.reply(id, { ok: "yes" });
    this.reply(id, { ok: false, output: `Unknown tool: ${String(params.tool)}` });
  }
}
