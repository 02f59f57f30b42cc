import crypto from "node:crypto";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { Receipt, ToolResult } from "@berth/protocol";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TEST_ADMIN_TOKEN, startTestRunner, type TestRunner } from "../testing/runner-test-kit";

/**
 * Workspace function tools end to end: a berth.tools.json in a real container's workspace, found, described,
 * called with bad and good arguments, parked by its class, refused outside a request's allowlist, and a
 * malformed file reported — through HTTP and through a real MCP SDK client.
 */
let kit: TestRunner;
let sessionId: string;

const COUNT_LINES_PY = `import json, sys
args = json.loads(sys.argv[1])
with open(args["path"]) as f:
    lines = sum(1 for _ in f)
print(json.dumps({"path": args["path"], "lines": lines, "repeat": args["repeat"]}))
`;

const countLines = {
  name: "count_lines",
  description: "Count the lines of a workspace file. Prints JSON with the count.",
  parameters: {
    type: "object",
    properties: { path: { type: "string", minLength: 1 }, repeat: { type: "integer", minimum: 1, default: 1 } },
    required: ["path"],
    additionalProperties: false,
  },
  script: "tools/count_lines.py",
  interpreter: "python3",
  actionClass: "read",
};
const deploy = {
  name: "deploy",
  description: "Deploy the site. Runs tools/deploy.sh.",
  parameters: { type: "object", properties: { target: { type: "string", enum: ["staging", "production"] } }, required: ["target"] },
  script: "tools/deploy.sh",
  interpreter: "bash",
  actionClass: "execute",
};
// A built-in's name: it gets a hash suffix and never replaces read_file.
const shadow = { ...countLines, name: "read_file", description: "Not the built-in read_file." };

const TOOLS_FILE = JSON.stringify({ tools: [countLines, deploy, shadow] }, null, 2);
// One bad field in one entry: nothing from the file loads.
const MALFORMED_FILE = JSON.stringify({ tools: [{ ...countLines, interpreter: "python4" }, deploy] }, null, 2);

type Capability = { name: string; kind: string; description: string; actionClass: string };
type Find = { capabilities: Capability[]; count: number; total: number; notices?: string[] };

async function writeFile(path: string, content: string): Promise<void> {
  const { status, body } = await kit.tool<ToolResult>(sessionId, "write_file", { path, content });
  if (status !== 200 || !body.ok) throw new Error(`write_file ${path}: ${status} ${JSON.stringify(body)}`);
}

async function gateway(args: Record<string, unknown>, query = ""): Promise<{ status: number; body: ToolResult }> {
  return kit.api<ToolResult>("POST", `/api/sessions/${sessionId}/tools/gateway${query}`, { args });
}

async function find(query: string, allow = ""): Promise<Find> {
  const { status, body } = await gateway({ op: "find", query }, allow);
  expect(status).toBe(200);
  expect(body.ok).toBe(true);
  return body.details as Find;
}

async function mcp(allow = ""): Promise<Client> {
  const client = new Client({ name: "berth-function-tools-test", version: "1.0.0" });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${kit.url}/mcp/${sessionId}${allow}`), {
      requestInit: { headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}` } },
    }),
  );
  return client;
}

const sha256 = (text: string): string => crypto.createHash("sha256").update(text).digest("hex");

const textOf = (result: unknown): string => ((result as CallToolResult).content[0] as { text: string }).text;

beforeAll(async () => {
  kit = await startTestRunner();
  // Default autonomy: every function tool asks (a declared read is admitted as execute: it runs a workspace
  // script), unless an operator's policy rule allows it naming its script's sha256, as this one does for count_lines.
  sessionId = await kit.createSession({ autonomy: "default" });
  const rule = await kit.api("POST", "/api/policy-rules", { tool: "count_lines", effect: "allow", scriptSha256: sha256(COUNT_LINES_PY), description: "count_lines is trusted" });
  if (rule.status !== 201) throw new Error(`policy rule: ${rule.status} ${JSON.stringify(rule.body)}`);
  await writeFile("notes.txt", "one\ntwo\nthree\n");
  await writeFile("tools/count_lines.py", COUNT_LINES_PY);
  await writeFile("tools/deploy.sh", 'echo "deployed $1"\n');
  await writeFile("berth.tools.json", TOOLS_FILE);
}, 120_000);

afterAll(async () => {
  await kit?.close();
});

describe("berth.tools.json over HTTP", () => {
  it("lists the declared tools with kind function and the class they are admitted as; a built-in's name gets a hash suffix", async () => {
    const found = await find("count lines");
    expect(found.capabilities[0]).toEqual({ name: "count_lines", kind: "function", description: "Count the lines of a workspace file.", actionClass: "execute" });

    const all = await find("");
    const functions = all.capabilities.filter((c) => c.kind === "function");
    expect(functions.map((c) => c.name).sort()).toEqual(["count_lines", "deploy", expect.stringMatching(/^read_file_[0-9a-f]{6}$/)]);
    expect(functions.find((c) => c.name === "deploy")?.actionClass).toBe("execute");
    // The built-in is still the built-in.
    expect(all.capabilities.find((c) => c.name === "read_file")?.kind).toBe("builtin");
    const read = await kit.tool<ToolResult>(sessionId, "read_file", { path: "notes.txt" });
    expect(read.body.ok).toBe(true);
  });

  it("describes a tool with its declared JSON Schema", async () => {
    const { body } = await gateway({ op: "describe", capability: "count_lines" });
    expect(body.ok).toBe(true);
    expect(body.details).toMatchObject({ name: "count_lines", kind: "function", actionClass: "execute", parameters: countLines.parameters });
  });

  it("refuses bad arguments before anything runs, naming the field and the bad value", async () => {
    const before = await kit.api<{ runs: unknown[] }>("GET", `/api/runs?sessionId=${sessionId}`);
    const { body } = await gateway({ op: "call", capability: "count_lines", args: { path: "notes.txt", repeat: "x" } });
    expect(body.ok).toBe(false);
    expect(body.error?.code).toBe("invalid_arguments");
    expect(body.error?.message).toBe('count_lines: invalid arguments: repeat: expected integer, got "x"');
    const missing = await gateway({ op: "call", capability: "count_lines", args: {} });
    expect(missing.body.error?.message).toBe("count_lines: invalid arguments: path: required (expected string)");
    // A refused call makes no run.
    const after = await kit.api<{ runs: unknown[] }>("GET", `/api/runs?sessionId=${sessionId}`);
    expect(after.body.runs.length).toBe(before.body.runs.length);
  });

  it("runs a good call as run_script: the script gets the arguments as JSON, and the call is a run with a sealed receipt", async () => {
    const { status, body } = await gateway({ op: "call", capability: "count_lines", args: { path: "notes.txt" } });
    expect(status).toBe(200);
    expect(body.ok).toBe(true);
    expect(body.details).toMatchObject({ capability: "count_lines", functionTool: "count_lines", outcome: "succeeded" });
    expect(body.output).toContain('{"path": "notes.txt", "lines": 3, "repeat": 1}');
    expect(body.runId).toMatch(/^run_/);
    expect(body.receiptId).toBeTruthy();

    const run = await kit.api<{ run: { tool: string; kind: string; outcome: string } }>("GET", `/api/runs/${body.runId}`);
    expect(run.body.run).toMatchObject({ tool: "count_lines", kind: "run_script", outcome: "succeeded" });
    const receipt = await kit.api<Receipt>("GET", `/api/receipts/${body.receiptId}`);
    expect(receipt.body.body.run).toMatchObject({ id: body.runId, tool: "count_lines", actionClass: "execute" });
    expect(receipt.body.body.script?.path).toBe("tools/count_lines.py");
    expect(receipt.body.body.args).toEqual({ path: "notes.txt", repeat: 1 });
    const verified = await kit.api<{ valid: boolean }>("POST", "/api/receipts/verify", { receipt: receipt.body });
    expect(verified.body.valid).toBe(true);
  });

  it("is callable by its own name too, under the same admission", async () => {
    const { body } = await kit.tool<ToolResult>(sessionId, "count_lines", { path: "notes.txt", repeat: 2 });
    expect(body.ok).toBe(true);
    expect(body.output).toContain('"repeat": 2');
  });

  it("trusts the script's bytes, not the tool's name: rewritten, the trusted tool parks instead of running, and runs again as it was", async () => {
    // An agent can write the workspace: the script an operator trusted is changed under the same name.
    await writeFile("tools/count_lines.py", 'import os\nprint("anything at all")\n');
    const parked = await kit.tool<{ status: string; text: string }>(sessionId, "count_lines", { path: "notes.txt" });
    expect(parked.status).toBe(202);
    expect(parked.body.status).toBe("parked");
    expect(parked.body.text).toContain("tools/count_lines.py");
    await writeFile("tools/count_lines.py", COUNT_LINES_PY);
    const ran = await kit.tool<ToolResult>(sessionId, "count_lines", { path: "notes.txt" });
    expect(ran.status).toBe(200);
    expect(ran.body.output).toContain('"lines": 3');
  });

  it("trusts the script's bytes inside a dispatch plan too: the task runs unasked, and parks the plan once the script is rewritten", async () => {
    const plan = { tasks: [{ tool: "count_lines", args: { path: "notes.txt" } }], topology: "parallel" };
    const ran = await kit.tool<ToolResult>(sessionId, "dispatch", plan);
    expect(ran.status).toBe(200);
    expect(ran.body.ok).toBe(true);
    const taskRun = /ok\s+task1 count_lines \((run_[0-9a-f]+)\)/.exec(ran.body.output)?.[1];
    expect(taskRun).toBeTruthy();
    const logs = await kit.api<{ content: string }>("GET", `/api/runs/${taskRun}/logs?stream=stdout`);
    expect(logs.body.content).toContain('"lines": 3');
    await writeFile("tools/count_lines.py", 'import os\nprint("anything at all")\n');
    try {
      const parked = await kit.tool<{ status: string; text: string }>(sessionId, "dispatch", plan);
      expect(parked.status).toBe(202);
      expect(parked.body.status).toBe("parked");
    } finally {
      await writeFile("tools/count_lines.py", COUNT_LINES_PY);
    }
  });

  it("does not take an allow rule naming only a function tool's name, and refuses a script hash on a rule of another kind", async () => {
    const byName = await kit.api<{ id: string }>("POST", "/api/policy-rules", { tool: "deploy", effect: "allow" });
    expect(byName.status).toBe(201);
    try {
      const parked = await kit.tool<{ status: string }>(sessionId, "deploy", { target: "staging" });
      expect(parked.status).toBe(202);
      expect(parked.body.status).toBe("parked");
    } finally {
      await kit.api("DELETE", `/api/policy-rules/${byName.body.id}`);
    }
    const refused = await kit.api<{ error: { code: string; message: string } }>("POST", "/api/policy-rules", { tool: "bash", effect: "allow", matchAll: true, scriptSha256: sha256("x") });
    expect(refused.status).toBe(400);
    expect(refused.body.error.message).toContain("scriptSha256: names a function tool's script, not bash");
  });

  it("parks a tool declared read that no operator's rule allows: an agent-written declaration does not skip approval", async () => {
    const shadowName = (await find("")).capabilities.find((c) => c.kind === "function" && c.name.startsWith("read_file_"))!.name;
    const parked = await kit.tool<{ status: string; text: string }>(sessionId, shadowName, { path: "notes.txt" });
    expect(parked.status).toBe(202);
    expect(parked.body.status).toBe("parked");
    expect(parked.body.text).toContain("tools/count_lines.py");
  });

  it("parks an execute-class tool at default autonomy; the operator's approval lets exactly that call run", async () => {
    const parked = await kit.tool<{ status: string; approvalId: string; sha256: string; text: string }>(sessionId, "deploy", { target: "staging" });
    expect(parked.status).toBe(202);
    expect(parked.body.status).toBe("parked");
    // The approval text binds the script it would run, and the approval names it with its sha256 for an operator to trust.
    expect(parked.body.text).toContain("tools/deploy.sh");
    const pending = await kit.api<{ approvals: { id: string; script?: { path: string; sha256: string } }[] }>("GET", "/api/approvals?status=pending");
    expect(pending.body.approvals.find((a) => a.id === parked.body.approvalId)?.script).toEqual({ path: "tools/deploy.sh", sha256: sha256('echo "deployed $1"\n') });
    const decided = await kit.api("POST", `/api/approvals/${parked.body.approvalId}`, { decision: "approve", sha256: parked.body.sha256 });
    expect(decided.status).toBe(200);
    const ran = await kit.tool<ToolResult>(sessionId, "deploy", { target: "staging" });
    expect(ran.status).toBe(200);
    expect(ran.body.ok).toBe(true);
    expect(ran.body.output).toContain("deployed {");
    const receipt = await kit.api<Receipt>("GET", `/api/receipts/${ran.body.receiptId}`);
    expect(receipt.body.body.approvals.map((a) => a.id)).toEqual([parked.body.approvalId]);
  });

  it("binds the script to the approval: changed after the operator saw it, the call parks again instead of running", async () => {
    const parked = await kit.tool<{ approvalId: string; sha256: string }>(sessionId, "deploy", { target: "production" });
    expect(parked.status).toBe(202);
    await writeFile("tools/deploy.sh", 'echo "something else $1"\n');
    await kit.api("POST", `/api/approvals/${parked.body.approvalId}`, { decision: "approve", sha256: parked.body.sha256 });
    const again = await kit.tool<{ status: string; approvalId: string }>(sessionId, "deploy", { target: "production" });
    expect(again.status).toBe(202);
    expect(again.body.approvalId).not.toBe(parked.body.approvalId);
    await writeFile("tools/deploy.sh", 'echo "deployed $1"\n');
  });

  it("is neither listed nor callable outside a request's allowlist", async () => {
    const narrowed = await find("", "?tools=gateway,read_file");
    expect(narrowed.capabilities.map((c) => c.name)).not.toContain("count_lines");
    expect(narrowed.capabilities.some((c) => c.kind === "function")).toBe(false);

    const viaGateway = await gateway({ op: "call", capability: "count_lines", args: { path: "notes.txt" } }, "?tools=gateway,read_file");
    expect(viaGateway.body.ok).toBe(false);
    expect(viaGateway.body.error?.code).toBe("denied");
    expect(viaGateway.body.error?.message).toContain("count_lines is not on this request's allowlist (tools=gateway,read_file)");

    const direct = await kit.api<ToolResult>("POST", `/api/sessions/${sessionId}/tools/count_lines?tools=read_file`, { args: { path: "notes.txt" } });
    expect(direct.body.ok).toBe(false);
    expect(direct.body.error?.code).toBe("denied");

    // Named on the list, it is both.
    const listed = await find("count", "?tools=gateway,count_lines");
    expect(listed.capabilities.map((c) => c.name)).toEqual(["count_lines"]);
  });
});

describe("berth.tools.json over MCP", () => {
  it("finds, describes, refuses bad arguments and runs a good call through the gateway", async () => {
    const client = await mcp();
    try {
      const found = JSON.parse(textOf(await client.callTool({ name: "gateway", arguments: { op: "find", query: "count_lines" } }))) as Find;
      expect(found.capabilities[0]).toMatchObject({ name: "count_lines", kind: "function", actionClass: "execute" });

      const described = JSON.parse(textOf(await client.callTool({ name: "gateway", arguments: { op: "describe", capability: "count_lines" } }))) as { parameters: unknown };
      expect(described.parameters).toEqual(countLines.parameters);

      const bad = (await client.callTool({ name: "gateway", arguments: { op: "call", capability: "count_lines", args: { path: "notes.txt", repeat: "x" } } })) as CallToolResult;
      expect(bad.isError).toBe(true);
      expect(textOf(bad)).toContain('repeat: expected integer, got "x"');

      const good = (await client.callTool({ name: "gateway", arguments: { op: "call", capability: "count_lines", args: { path: "notes.txt" } } })) as CallToolResult;
      expect(good.isError).toBeFalsy();
      expect(textOf(good)).toContain('"lines": 3');
      const runId = (good._meta as Record<string, unknown> | undefined)?.["berth/runId"] as string;
      expect(runId).toMatch(/^run_/);
      const run = await kit.api<{ run: { tool: string; receiptId: string | null; caller: string } }>("GET", `/api/runs/${runId}`);
      expect(run.body.run).toMatchObject({ tool: "count_lines", caller: "agent" });
      expect(run.body.run.receiptId).toBeTruthy();
    } finally {
      await client.close();
    }
  });

  it("keeps function tools out of a connection whose allowlist does not name them", async () => {
    const client = await mcp("?tools=gateway,read_file");
    try {
      const found = JSON.parse(textOf(await client.callTool({ name: "gateway", arguments: { op: "find", query: "" } }))) as Find;
      expect(found.capabilities.some((c) => c.kind === "function")).toBe(false);
      const refused = (await client.callTool({ name: "gateway", arguments: { op: "call", capability: "count_lines", args: { path: "notes.txt" } } })) as CallToolResult;
      expect(refused.isError).toBe(true);
      expect(textOf(refused)).toContain("count_lines is not on this request's allowlist");
    } finally {
      await client.close();
    }
  });
});

describe("a malformed berth.tools.json", () => {
  it("loads nothing, is reported by context workspace naming the file, the entry and the field, and breaks nothing", async () => {
    await writeFile("berth.tools.json", MALFORMED_FILE);
    const all = await find("");
    expect(all.capabilities.some((c) => c.kind === "function")).toBe(false);
    expect(all.capabilities.map((c) => c.name)).toContain("update_agents_md");

    const { body } = await gateway({ op: "call", capability: "context", args: { scope: "workspace" } });
    expect(body.ok).toBe(true);
    const report = (body.details as { functionTools: { file: string; tools: unknown[]; problems: string[] } }).functionTools;
    expect(report.file).toBe("berth.tools.json");
    expect(report.tools).toEqual([]);
    expect(report.problems).toEqual([expect.stringMatching(/^berth\.tools\.json: tools\[0\] \(count_lines\): interpreter: must be one of python3, .* \(got "python4"\)$/)]);
    // gateway find says why beside its list.
    expect(all.notices).toEqual(report.problems);

    // The session goes on: built-ins answer, and a call of a tool the file no longer gives is unknown, not a crash.
    const read = await kit.tool<ToolResult>(sessionId, "read_file", { path: "notes.txt" });
    expect(read.body.ok).toBe(true);
    const gone = await gateway({ op: "call", capability: "count_lines", args: { path: "notes.txt" } });
    expect(gone.body.error?.code).toBe("unknown_tool");

    // Fixed again, the tools are back at once: the change is seen by the file's content hash.
    await writeFile("berth.tools.json", TOOLS_FILE);
    const fixed = await find("count_lines");
    expect(fixed.capabilities[0]?.name).toBe("count_lines");
    expect(fixed.notices).toBeUndefined();
  });

  it("reports text that is not JSON", async () => {
    await writeFile("berth.tools.json", '{"tools": [');
    const { body } = await gateway({ op: "call", capability: "context", args: { scope: "workspace" } });
    const report = (body.details as { functionTools: { problems: string[] } }).functionTools;
    expect(report.problems[0]).toMatch(/^berth\.tools\.json: not valid JSON \(/);
    expect((await find("")).capabilities.some((c) => c.kind === "function")).toBe(false);
    await writeFile("berth.tools.json", TOOLS_FILE);
  });
});
