import { describe, expect, it } from "vitest";
import { SandboxError, sandboxNotRunning } from "../errors";
import { FakeAgent } from "../testing/fake-agent";
import { AgentConnection } from "./agent-connection";

function connect(agent: FakeAgent, defaultTimeoutMs = 2_000) {
  return new AgentConnection({ sessionId: "s1", stdin: agent.stdin, stdout: agent.stdout, defaultTimeoutMs });
}

describe("AgentConnection", () => {
  it("handshakes and reports the agent's version", async () => {
    const conn = connect(new FakeAgent());
    const hello = await conn.hello("runner-test");
    expect(hello.agentVersion).toBe("fake-1");
    expect(hello.uid).toBe(1000);
  });

  it("refuses an agent speaking another protocol version", async () => {
    const conn = connect(new FakeAgent({ protocolVersion: 99 }));
    await expect(conn.hello()).rejects.toThrow(/protocol version 99/);
  });

  it("correlates concurrent calls by id", async () => {
    const conn = connect(new FakeAgent());
    const [slow, fast] = await Promise.all([
      conn.callTool({ tool: "sleep", args: { ms: 30 }, callId: "a" }),
      conn.callTool({ tool: "echo", args: { n: 1 }, callId: "b" }),
    ]);
    expect(slow.output).toBe("slept");
    expect(fast.output).toBe('{"n":1}');
  });

  it("sends the requests of one turn in one write, in the order they were made", async () => {
    const agent = new FakeAgent();
    const conn = connect(agent);
    const writes: string[] = [];
    const write = agent.stdin.write.bind(agent.stdin);
    agent.stdin.write = ((chunk: string, ...rest: never[]) => (writes.push(chunk), write(chunk, ...rest))) as typeof agent.stdin.write;
    const results = await Promise.all(Array.from({ length: 10 }, (_, n) => conn.callTool({ tool: "echo", args: { n }, callId: `c${n}` })));
    expect(results.map((result) => result.output)).toEqual(Array.from({ length: 10 }, (_, n) => `{"n":${n}}`));
    expect(writes).toHaveLength(1);
    expect((agent.received as { params: { callId: string } }[]).map((message) => message.params.callId)).toEqual(Array.from({ length: 10 }, (_, n) => `c${n}`));
  });

  it("delivers output frames as typed events", async () => {
    const conn = connect(new FakeAgent());
    const seen: string[] = [];
    conn.on("output", (n) => seen.push(`${n.callId}@${n.offset}:${n.data.toString()}`));
    await conn.callTool({ tool: "emit", args: { chunks: ["ab", "cde"] }, callId: "c1" });
    expect(seen).toEqual(["c1@0:ab", "c1@2:cde"]);
  });

  it("fails the connection on an output frame whose header does not match the schema", async () => {
    const agent = new FakeAgent({ silent: true });
    const conn = connect(agent, 60_000);
    conn.on("end", () => undefined);
    const pending = conn.ping();
    const seen: unknown[] = [];
    conn.on("output", (n) => seen.push(n));
    const header = Buffer.from(JSON.stringify({ stream: "stdin", offset: -1 }));
    const prefix = Buffer.alloc(9);
    prefix.writeUInt32BE(header.length, 1);
    prefix.writeUInt32BE(2, 5);
    agent.stdout.write(Buffer.concat([prefix, header, Buffer.from("hi")]));
    await expect(pending).rejects.toThrow(/Agent in session s1 sent an invalid output frame header: .*stream/s);
    await expect(conn.ping()).rejects.toThrow(/invalid output frame header/);
    expect(seen).toEqual([]);
  });

  it("times out a call the agent never answers, naming method and limit", async () => {
    const conn = connect(new FakeAgent({ silent: true }));
    const err = await conn.ping({ timeoutMs: 50 }).catch((e: unknown) => e);
    expect(SandboxError.isSandboxError(err) && err.reason).toBe("timeout");
    expect(String(err)).toMatch(/agent\.ping .* timed out after 50 ms/);
  });

  it("rejects a reply that does not match the method's schema", async () => {
    const conn = connect(new FakeAgent());
    await expect(conn.callTool({ tool: "bad-result", args: {}, callId: "x" })).rejects.toThrow(
      /invalid tool\.call result/,
    );
  });

  it("turns a JSON-RPC error into a SandboxError with the rpc code", async () => {
    const conn = connect(new FakeAgent());
    const err = await conn
      .request("no.such", {}, { safeParse: (v: unknown) => ({ success: true as const, data: v }) })
      .catch((e: unknown) => e);
    expect(SandboxError.isSandboxError(err) && err.rpcCode).toBe(-32601);
  });

  it("ignores garbage lines and keeps serving", async () => {
    const agent = new FakeAgent();
    const conn = connect(agent);
    const faults: string[] = [];
    conn.on("protocol-error", (m) => faults.push(m));
    agent.sendRaw("this is not json");
    agent.sendRaw(JSON.stringify({ jsonrpc: "2.0", method: "output", params: { bad: true } }));
    await expect(conn.ping()).resolves.toMatchObject({ rssBytes: 1234 });
    expect(faults).toHaveLength(2);
  });

  it("reassembles a reply split across chunks, multi-byte characters included", async () => {
    const agent = new FakeAgent({ silent: true });
    const conn = connect(agent);
    const pending = conn.callTool({ tool: "x", args: {}, callId: "c" });
    const line = Buffer.from(`${JSON.stringify({ jsonrpc: "2.0", id: 1, result: { ok: true, output: "h€llo" } })}\n`);
    for (let i = 0; i < line.length; i += 3) agent.stdout.write(line.subarray(i, i + 3));
    await expect(pending).resolves.toMatchObject({ output: "h€llo" });
  });

  it("rejects every pending call at once with the cause the owner gives", async () => {
    const agent = new FakeAgent();
    const conn = connect(agent, 60_000);
    conn.on("end", () => conn.fail(sandboxNotRunning("s1", "oom", 137)));
    const calls = [1, 2, 3].map((i) => conn.callTool({ tool: "sleep", args: { ms: 10_000 }, callId: `c${i}` }));
    const started = Date.now();
    agent.crash();
    const errors = await Promise.all(calls.map((c) => c.catch((e: unknown) => e)));
    expect(Date.now() - started).toBeLessThan(100);
    for (const err of errors)
      expect(String(err)).toContain("Sandbox for session s1 is not running (cause: oom, exit code 137)");
    await expect(conn.ping()).rejects.toThrow(/cause: oom/);
  });

  it("still rejects pending calls when nobody explains the end of the stream", async () => {
    const agent = new FakeAgent();
    const conn = connect(agent, 60_000);
    const call = conn.callTool({ tool: "sleep", args: { ms: 10_000 }, callId: "c" });
    agent.crash();
    await expect(call).rejects.toThrow(/is not running \(cause: exited\)/);
  });

  it("asks the agent to abort a tool call whose signal fires at once, before the watch on its signal starts", async () => {
    const agent = new FakeAgent();
    const conn = connect(agent);
    const controller = new AbortController();
    const call = conn.callTool({ tool: "sleep", args: { ms: 10_000 }, callId: "c8" }, { signal: controller.signal });
    controller.abort();
    await expect(call).resolves.toMatchObject({ ok: false, error: { code: "aborted" } });
    expect((agent.received as { method: string }[]).map((message) => message.method)).toEqual(["tool.call", "tool.abort"]);
  });

  it("stops waiting for a call whose signal had aborted before it was made", async () => {
    const conn = connect(new FakeAgent({ silent: true }), 60_000);
    await expect(conn.ping({ signal: AbortSignal.abort() })).rejects.toThrow(/was aborted by the caller/);
    expect(conn.pendingCount).toBe(0);
  });

  it("asks the agent to abort a tool call when the signal fires", async () => {
    const conn = connect(new FakeAgent());
    const controller = new AbortController();
    const call = conn.callTool({ tool: "sleep", args: { ms: 10_000 }, callId: "c9" }, { signal: controller.signal });
    setTimeout(() => controller.abort(), 20);
    await expect(call).resolves.toMatchObject({ ok: false, error: { code: "aborted" } });
  });
});
