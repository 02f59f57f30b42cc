import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TEST_ADMIN_TOKEN, startTestRunner, type TestRunner } from "../testing/runner-test-kit";

let kit: TestRunner;
let session: string;

async function mcpClient(token: string | null, sessionId = session): Promise<Client> {
  const client = new Client({ name: "berth-test", version: "1.0.0" });
  const transport = new StreamableHTTPClientTransport(new URL(`${kit.url}/mcp/${sessionId}`), {
    requestInit: { headers: token ? { authorization: `Bearer ${token}` } : {} },
  });
  await client.connect(transport);
  return client;
}

beforeAll(async () => {
  kit = await startTestRunner();
  session = await kit.createSession({ autonomy: "default" });
});
afterAll(async () => kit?.close());

describe("Berth as an MCP server (real SDK client, real sandbox)", () => {
  it("lists the session's direct tools with annotations and calls one", async () => {
    const client = await mcpClient(TEST_ADMIN_TOKEN);
    const { tools } = await client.listTools();
    const names = tools.map((t) => t.name);
    expect(names).toEqual(expect.arrayContaining(["read_file", "write_file", "bash", "run_script", "gateway"]));
    expect(names).not.toContain("update_agents_md");
    expect(tools.find((t) => t.name === "read_file")?.annotations?.readOnlyHint).toBe(true);
    const written = await client.callTool({ name: "write_file", arguments: { path: "m.txt", content: "via mcp\n" } });
    expect(written.isError).toBeFalsy();
    const read = await client.callTool({ name: "read_file", arguments: { path: "m.txt" } });
    expect(JSON.stringify(read.content)).toContain("via mcp");
    const failed = await client.callTool({ name: "read_file", arguments: { path: "../etc/passwd" } });
    expect(failed.isError).toBe(true);
    await client.close();
  });

  it("refuses a client without a token, and the web app's cookie (bearer only)", async () => {
    await expect(mcpClient(null)).rejects.toThrow(/401|nauthori/);
    const withCookie = await fetch(`${kit.url}/mcp/${session}`, {
      method: "POST",
      // Same-origin, so the request guard's cookie-riding refusal (403) does not answer first: /mcp itself refuses the cookie.
      headers: { cookie: `berth_token=${TEST_ADMIN_TOKEN}`, "sec-fetch-site": "same-origin", "content-type": "application/json", accept: "application/json, text/event-stream" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
    });
    expect(withCookie.status).toBe(401);
    expect(withCookie.headers.get("www-authenticate")).toMatch(/^Bearer /);
  });

  it("holds a parked call until an operator approves it, then returns its result", async () => {
    const client = await mcpClient(TEST_ADMIN_TOKEN);
    const call = client.callTool({ name: "bash", arguments: { command: "sudo true; echo approved-over-mcp" } }, undefined, { timeout: 60_000 });
    let approval: { id: string; sha256: string } | undefined;
    for (let i = 0; i < 50 && !approval; i++) {
      await new Promise((r) => setTimeout(r, 100));
      const pending = await kit.api<{ approvals: { id: string; sha256: string; tool: string }[] }>("GET", "/api/approvals?status=pending");
      approval = pending.body.approvals.find((a) => a.tool === "bash");
    }
    expect(approval).toBeDefined();
    await kit.api("POST", `/api/approvals/${approval!.id}`, { decision: "approve", sha256: approval!.sha256 });
    const result = await call;
    expect(result.isError).toBeFalsy();
    expect(JSON.stringify(result.content)).toContain("approved-over-mcp");
    await client.close();
  });

  it("blocks the third identical agent call within 30 s (loop guard)", async () => {
    const client = await mcpClient(TEST_ADMIN_TOKEN);
    const ls = () => client.callTool({ name: "bash", arguments: { command: "ls -la" } });
    expect((await ls()).isError).toBeFalsy();
    expect((await ls()).isError).toBeFalsy();
    const third = await ls();
    expect(third.isError).toBe(true);
    expect(JSON.stringify(third.content)).toMatch(/identical|loop/i);
    await client.close();
  });
});
