import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TEST_ADMIN_TOKEN, startTestRunner, type TestRunner } from "../testing/runner-test-kit";

// An agent over MCP (the loop guard applies to agents) against a real runner and sandbox.
let kit: TestRunner;
let client: Client;

const text = (result: Awaited<ReturnType<Client["callTool"]>>): string =>
  (result.content as { type: string; text?: string }[]).map((c) => c.text ?? "").join("\n");

async function call(name: string, args: Record<string, unknown>) {
  const result = await client.callTool({ name, arguments: args });
  return { isError: result.isError === true, text: text(result) };
}

beforeAll(async () => {
  kit = await startTestRunner();
  const session = await kit.createSession({ autonomy: "default" });
  client = new Client({ name: "berth-loop-guard-test", version: "1.0.0" });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${kit.url}/mcp/${session}`), {
      requestInit: { headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}` } },
    }),
  );
});
afterAll(async () => {
  await client?.close();
  await kit?.close();
});

describe("loop guard through the real ToolService (MCP agent, real sandbox)", () => {
  it("lets the edit-and-verify loop run 10 rounds: write → read_file → cat after each edit", async () => {
    for (let round = 0; round < 10; round++) {
      const written = await call("write_file", { path: "src.txt", content: `v${round}\n` });
      expect(written.isError, written.text).toBe(false);
      const read = await call("read_file", { path: "src.txt" });
      expect(read.isError, `round ${round}: ${read.text}`).toBe(false);
      expect(read.text).toContain(`v${round}`);
      const cat = await call("bash", { command: "cat src.txt" });
      expect(cat.isError, `round ${round}: ${cat.text}`).toBe(false);
      expect(cat.text).toContain(`v${round}`);
    }
  });

  it("blocks the third identical read of an unchanged file, pointing back to the earlier result", async () => {
    await call("write_file", { path: "still.txt", content: "same\n" });
    expect((await call("read_file", { path: "still.txt" })).isError).toBe(false);
    expect((await call("read_file", { path: "still.txt" })).isError).toBe(false);
    const third = await call("read_file", { path: "still.txt" });
    expect(third.isError).toBe(true);
    expect(third.text).toMatch(/3rd identical read_file call .*nothing in the workspace has changed/);
    expect(third.text).toMatch(/as call call_\w+ at \d{4}-\d\d-\d\dT/);
  });

  it("a command's own run is not a change: the third identical cat blocks, naming the earlier run", async () => {
    await call("write_file", { path: "cat.txt", content: "cat me\n" });
    expect((await call("bash", { command: "cat cat.txt" })).isError).toBe(false);
    expect((await call("bash", { command: "cat cat.txt" })).isError).toBe(false);
    const third = await call("bash", { command: "cat cat.txt" });
    expect(third.isError).toBe(true);
    expect(third.text).toMatch(/\(run run_\w+\)/);
  });

  it("bash write to a process the session started is admitted as its start was (no park at default)", async () => {
    const started = await client.callTool({ name: "bash", arguments: { action: "start", command: "cat" } });
    expect(started.isError, text(started)).toBeFalsy();
    const processId =
      (started.structuredContent as { details?: { processId?: string } } | undefined)?.details?.processId ??
      text(started).match(/proc_[0-9a-f]{32}/)?.[0];
    expect(processId).toMatch(/^proc_/);
    const wrote = await call("bash", { action: "write", processId, input: "hello stdin\n", closeStdin: true });
    expect(wrote.isError, wrote.text).toBe(false);
    let logs = "";
    for (let i = 0; i < 20 && !logs.includes("hello stdin"); i++) {
      // A poll observes the process's output: a repeat before new output arrives would count.
      await new Promise((r) => setTimeout(r, 300));
      logs = (await call("bash", { action: "logs", processId, offset: 0 })).text;
    }
    expect(logs).toContain("hello stdin");
  });
});
