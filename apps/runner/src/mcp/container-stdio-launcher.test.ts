import { execFileSync } from "node:child_process";
import { EventEmitter } from "node:events";
import type { SandboxDriver } from "@berth/sandbox";
import type { ToolCallParams, ToolResult } from "@berth/protocol";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, it } from "vitest";
import { ContainerStdioTransport, shellQuote, stdioCommandLine } from "./container-stdio-launcher";

/** Just enough of a driver: records calls, answers bash start/write/stop, lets the test emit events. */
function fakeDriver(opts: { beforeStartReturns?: (emit: FakeDriver["emitOutput"]) => void } = {}) {
  const events = new EventEmitter();
  const calls: ToolCallParams[] = [];
  const driver = {
    calls,
    on(event: string, listener: (...args: unknown[]) => void) {
      events.on(event, listener);
      return driver;
    },
    off(event: string, listener: (...args: unknown[]) => void) {
      events.off(event, listener);
      return driver;
    },
    listenerCount: (event: string) => events.listenerCount(event),
    async call(_sessionId: string, params: ToolCallParams): Promise<ToolResult> {
      calls.push(params);
      const args = params.args as { action: string };
      if (args.action === "start") {
        opts.beforeStartReturns?.(driver.emitOutput);
        return { ok: true, output: "", details: { processId: "proc_1", status: "RUNNING" } };
      }
      return { ok: true, output: "", details: {} };
    },
    emitOutput(data: string | Buffer, offset: number, stream: "stdout" | "stderr" = "stdout", processId = "proc_1") {
      events.emit("output", { sessionId: "ses_1", processId, stream, offset, data: Buffer.from(data) });
    },
    emitStatus(status: "EXITED" | "STOPPED", exitCode: number) {
      events.emit("process.status", { sessionId: "ses_1", processId: "proc_1", status, exitCode });
    },
  };
  return driver;
}
type FakeDriver = ReturnType<typeof fakeDriver>;

function transportOn(driver: FakeDriver) {
  const transport = new ContainerStdioTransport({
    driver: driver as unknown as SandboxDriver,
    sessionId: "ses_1",
    commandLine: stdioCommandLine("node", ["server.mjs"]),
    label: "t",
    env: async () => ({ TOKEN: "x" }),
  });
  const messages: JSONRPCMessage[] = [];
  const errors: string[] = [];
  let closed = 0;
  transport.onmessage = (m) => messages.push(m);
  transport.onerror = (e) => errors.push(e.message);
  transport.onclose = () => closed++;
  return { transport, messages, errors, closed: () => closed };
}

describe("shellQuote", () => {
  it("passes every word to the program exactly, whatever it contains", () => {
    const words = ["plain", "it's", "$(touch /tmp/x)", "`id`", "a b\tc", "\"q\"", "'", "", "ünï\\n"];
    const out = execFileSync("bash", ["-c", `printf '%s\\0' ${words.map(shellQuote).join(" ")}`]).toString("utf8");
    expect(out.split("\0").slice(0, -1)).toEqual(words);
  });

  it("execs the server so it is the process the agent stops", () => {
    expect(stdioCommandLine("node", ["a b.mjs"])).toBe("exec 'node' 'a b.mjs'");
  });
});

describe("ContainerStdioTransport", () => {
  it("starts the command with the session env, writes newline-delimited JSON-RPC in order", async () => {
    const driver = fakeDriver();
    const { transport } = transportOn(driver);
    await transport.start();
    expect(driver.calls[0]).toMatchObject({ tool: "bash", args: { action: "start", command: "exec 'node' 'server.mjs'" }, env: { TOKEN: "x" } });
    await Promise.all([
      transport.send({ jsonrpc: "2.0", id: 1, method: "ping" }),
      transport.send({ jsonrpc: "2.0", method: "notifications/initialized" }),
    ]);
    const writes = driver.calls.slice(1).map((c) => c.args as { action: string; processId: string; input: string });
    expect(writes.map((w) => [w.action, w.processId])).toEqual([
      ["write", "proc_1"],
      ["write", "proc_1"],
    ]);
    expect(writes.map((w) => JSON.parse(w.input) as { method: string })).toMatchObject([{ method: "ping" }, { method: "notifications/initialized" }]);
    expect(writes.every((w) => w.input.endsWith("}\n"))).toBe(true);
  });

  it("reassembles lines split across chunks (even inside a UTF-8 character) and reports junk as errors", async () => {
    const driver = fakeDriver();
    const { transport, messages, errors } = transportOn(driver);
    await transport.start();
    const line = Buffer.from(`${JSON.stringify({ jsonrpc: "2.0", id: 1, result: { text: "ünï" } })}\n`);
    const cut = line.indexOf(Buffer.from("ü")) + 1;
    driver.emitOutput(line.subarray(0, cut), 0);
    driver.emitOutput(line.subarray(cut), cut);
    // A repeated chunk (same offset) is not delivered twice; other processes' output is not ours.
    driver.emitOutput(line.subarray(cut), cut);
    driver.emitOutput(line, 0, "stdout", "proc_other");
    driver.emitOutput("not json\n{\"jsonrpc\":\"2.0\",\"nope\":1}\n", line.length);
    expect(messages).toEqual([{ jsonrpc: "2.0", id: 1, result: { text: "ünï" } }]);
    expect(errors).toEqual([expect.stringMatching(/not JSON: not json/), expect.stringMatching(/not a JSON-RPC message/)]);
  });

  it("keeps output that arrives before the start call returns", async () => {
    const early = `${JSON.stringify({ jsonrpc: "2.0", method: "notifications/message", params: { level: "info", data: "hi" } })}\n`;
    const driver = fakeDriver({ beforeStartReturns: (emit) => emit(early, 0) });
    const { transport, messages } = transportOn(driver);
    await transport.start();
    expect(messages).toHaveLength(1);
  });

  it("reports the exit once (with stderr) and stops listening; close after that does nothing", async () => {
    const driver = fakeDriver();
    const { transport, errors, closed } = transportOn(driver);
    await transport.start();
    driver.emitOutput("Error: Cannot find module\n", 0, "stderr");
    driver.emitStatus("EXITED", 1);
    expect(closed()).toBe(1);
    expect(errors).toEqual([expect.stringMatching(/exited with code 1: Error: Cannot find module/)]);
    expect(driver.listenerCount("output")).toBe(0);
    await transport.close();
    expect(closed()).toBe(1);
    await expect(transport.send({ jsonrpc: "2.0", id: 2, method: "ping" })).rejects.toThrow(/not running/);
  });

  it("close stops the process and reports the close", async () => {
    const driver = fakeDriver();
    const { transport, closed } = transportOn(driver);
    await transport.start();
    await transport.close();
    expect(driver.calls.at(-1)).toMatchObject({ tool: "bash", args: { action: "stop", processId: "proc_1" } });
    expect(closed()).toBe(1);
  });
});
