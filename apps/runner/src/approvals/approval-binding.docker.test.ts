import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestRunner, type TestRunner } from "../testing/runner-test-kit";

type Parked = { status: "parked"; approvalId: string; text: string; sha256: string };
type Result = { ok: boolean; output: string; details?: Record<string, unknown>; error?: { code: string; message: string }; runId?: string };

let kit: TestRunner;
let session: string;

beforeAll(async () => {
  kit = await startTestRunner();
  session = await kit.createSession({ autonomy: "default" });
});
afterAll(async () => kit?.close());

const approve = (parked: Parked) => kit.api("POST", `/api/approvals/${parked.approvalId}`, { decision: "approve", sha256: parked.sha256 });
const write = (file: string, content: string) => kit.tool<Result>(session, "write_file", { path: file, content });
const read = async (file: string) => String((await kit.tool<Result>(session, "read_file", { path: file })).body.details?.content ?? "");

/** Every file the runner wrote under the data dir (database, WAL, run logs, receipts) that holds `needle`. */
function filesHolding(needle: string): string[] {
  const hits: string[] = [];
  const walk = (dir: string) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      // workspaces/ holds the sessions' size-limited workspace images: the workspace, not what the runner stores.
      if (entry.isDirectory()) {
        if (entry.name !== "workspaces") walk(full);
      }
      else if (entry.isFile() && fs.readFileSync(full).includes(needle)) hits.push(path.relative(kit.dataDir, full));
    }
  };
  walk(kit.dataDir);
  return hits;
}

describe("approvals bind what runs (issue 14 item 3)", () => {
  it("shows the script's content and sha256, and refuses the approved call once the script was rewritten: the new content never runs", async () => {
    expect((await write("s.py", "open('ran.txt','w').write('approved')\nprint('approved ran')\n")).body.ok).toBe(true);
    const call = { interpreter: "python3", script: "s.py" };
    const parked = await kit.tool<Parked>(session, "run_script", call);
    expect(parked.status).toBe(202);
    expect(parked.body.text).toMatch(/\nfile s\.py sha256=[0-9a-f]{64} bytes=\d+\n/);
    expect(parked.body.text).toContain("| print('approved ran')");
    expect((await approve(parked.body)).status).toBe(200);

    // Rewritten after approval: coming back with the same call is a new request, not the approved one.
    await write("s.py", "open('ran.txt','w').write('rewritten')\n");
    const again = await kit.tool<Parked>(session, "run_script", call);
    expect(again.status).toBe(202);
    expect(again.body.approvalId).not.toBe(parked.body.approvalId);
    expect(await read("ran.txt")).toBe("");
  });

  it("an approval waited on refuses at execution when the script changes between approval and run (outcome refused)", async () => {
    await write("w.sh", "echo approved > ran2.txt\n");
    const call = { interpreter: "bash", script: "w.sh" };
    const parked = await kit.tool<Parked>(session, "run_script", call);
    const waiting = kit.tool<Result>(session, "run_script", call, { wait: 30_000 });
    await new Promise((r) => setTimeout(r, 500));
    // The waiting call was hashed at park time; rewrite, then approve what the operator saw.
    await write("w.sh", "echo rewritten > ran2.txt\n");
    expect((await approve(parked.body)).status).toBe(200);
    const ran = await waiting;
    expect(ran.status).toBe(200);
    expect(ran.body.ok).toBe(false);
    expect(ran.body.error?.message).toMatch(/^run_script: w\.sh changed since approval \(approved sha256 [0-9a-f]{64}, now [0-9a-f]{64}\)$/);
    const run = await kit.api<{ run: { outcome: string } }>("GET", `/api/runs/${ran.body.runId}`);
    expect(run.body.run.outcome).toBe("refused");
    expect(await read("ran2.txt")).toBe("");
  });

  it("a plan's approval binds its tasks' files: the same plan over a rewritten script parks again, and a plan waited on refuses the rewritten task", async () => {
    await write("p1.sh", "echo approved > plan1.txt\n");
    const plan = { topology: "sequential", tasks: [{ tool: "run_script", args: { interpreter: "bash", script: "p1.sh" } }, { tool: "read_file", args: { path: "p1.sh" } }] };
    const parked = await kit.tool<Parked>(session, "dispatch", plan);
    expect(parked.status).toBe(202);
    expect(parked.body.text).toMatch(/\nfile p1\.sh sha256=[0-9a-f]{64} bytes=\d+$/);
    expect((await approve(parked.body)).status).toBe(200);

    // Rewritten after approval: the same plan is another text to approve, and the new script never runs.
    await write("p1.sh", "echo rewritten > plan1.txt\n");
    const again = await kit.tool<Parked>(session, "dispatch", plan);
    expect(again.status).toBe(202);
    expect(again.body.approvalId).not.toBe(parked.body.approvalId);
    expect(await read("plan1.txt")).toBe("");

    // Waited on, then rewritten before the operator approves what they saw: the task is refused as changed.
    await write("p1.sh", "echo approved again > plan1.txt\n");
    const shown = await kit.tool<Parked>(session, "dispatch", plan);
    expect(shown.status).toBe(202);
    const waiting = kit.tool<Result>(session, "dispatch", plan, { wait: 30_000 });
    await new Promise((r) => setTimeout(r, 500));
    await write("p1.sh", "echo rewritten > plan1.txt\n");
    expect((await approve(shown.body)).status).toBe(200);
    const ran = await waiting;
    const tasks = ran.body.details?.tasks as { output: string }[];
    expect(tasks[0]?.output).toMatch(/^run_script: p1\.sh changed since approval/);
    expect(await read("plan1.txt")).toBe("");
  });

  it("the interpreter runs the bytes the agent checked, not the path: a script rewriting itself mid-run changes nothing", async () => {
    // bash reads a script file as it goes; run from the path, it would go on into the rewritten text.
    const script = 'printf "echo INJECTED\\n%.0s" $(seq 1 200) > self.sh\nsleep 0.3\necho approved-end\n';
    await write("self.sh", script);
    const parked = await kit.tool<Parked>(session, "run_script", { interpreter: "bash", script: "self.sh" });
    await approve(parked.body);
    const result = await kit.tool<Result>(session, "run_script", { interpreter: "bash", script: "self.sh" });
    expect(result.body.ok).toBe(true);
    expect(String(result.body.details?.stdoutTail)).toBe("approved-end\n");
    expect(await read("self.sh")).toMatch(/^echo INJECTED\n/);
  });

  it("binds write_file's target: changed after approval, the approved write is refused", async () => {
    await write("t.txt", "v1");
    const rule = await kit.api<{ id: string }>("POST", "/api/policy-rules", { tool: "write_file", effect: "ask" });
    expect(rule.status).toBe(201);
    try {
      const call = { path: "t.txt", content: "from the agent" };
      const parked = await kit.tool<Parked>(session, "write_file", call);
      expect(parked.status).toBe(202);
      expect(parked.body.text).toMatch(/\nfile t\.txt sha256=[0-9a-f]{64} bytes=2$/);
      const waiting = kit.tool<Result>(session, "write_file", call, { wait: 30_000 });
      await new Promise((r) => setTimeout(r, 500));
      await kit.tool(session, "bash", { command: "printf v2 > t.txt" });
      await approve(parked.body);
      const ran = await waiting;
      expect(ran.body.ok).toBe(false);
      expect(ran.body.error?.message).toMatch(/^write_file: t\.txt changed since approval \(approved sha256 [0-9a-f]{64}, now [0-9a-f]{64}\)$/);
      expect(await read("t.txt")).toBe("v2");
      // A path the agent will not hash is said to be unbound (the call itself is refused when it runs).
      const outside = await kit.tool<Parked>(session, "write_file", { path: "../outside.txt", content: "x" });
      expect(outside.status).toBe(202);
      expect(outside.body.text).toMatch(/\nfiles not bound: .*files\.hash: paths must resolve inside the workspace \(got "\.\.\/outside\.txt"\)$/);
    } finally {
      await kit.api("DELETE", `/api/policy-rules/${rule.body.id}`);
    }
  });
});

describe("secrets are never stored or shown in clear (issue 14 item 5)", () => {
  it("a run_script env value is in neither the 202 reply, the approvals list, nor any file of the data dir", async () => {
    const secret = "env-secret-value-7f3a9c";
    await write("e.sh", 'echo "token is $API_TOKEN"\n');
    const call = { interpreter: "bash", script: "e.sh", env: { API_TOKEN: secret } };
    const parked = await kit.tool<Parked>(session, "run_script", call);
    expect(parked.status).toBe(202);
    expect(parked.body.text).toContain('"env":{"API_TOKEN":"***"}');
    expect(JSON.stringify(parked.body)).not.toContain(secret);
    const listed = await kit.api<{ approvals: { text: string }[] }>("GET", "/api/approvals?status=pending");
    expect(JSON.stringify(listed.body)).not.toContain(secret);
    await approve(parked.body);
    const ran = await kit.tool<Result>(session, "run_script", call);
    expect(ran.body.ok).toBe(true);
    const log = await kit.api<{ content: string }>("GET", `/api/runs/${ran.body.runId}/logs?stream=stdout`);
    expect(log.body.content).toBe("token is [REDACTED]\n");
    expect(filesHolding(secret)).toEqual([]);
  });

  it("a bearer token in a bash command is not returned by GET /api/runs/:id", async () => {
    const token = "berth_c2VjcmV0LXRva2VuLWluLWEtYmFzaC1jb21tYW5k";
    const ran = await kit.tool<Result>(session, "bash", { command: `echo -n x; : curl -H "Authorization: Bearer ${token}" http://127.0.0.1:1/` });
    expect(ran.body.runId).toBeTruthy();
    const run = await kit.api("GET", `/api/runs/${ran.body.runId}`);
    expect(run.status).toBe(200);
    expect(JSON.stringify(run.body)).toContain("Bearer [REDACTED]");
    expect(JSON.stringify(run.body)).not.toContain(token);
  });

  it("an MCP server URL's user:pass@ is not returned to anyone", async () => {
    const created = await kit.api<{ id: string; url: string }>("POST", "/api/mcp-servers", {
      name: "with-userinfo",
      transport: "http",
      url: "http://alice:hunter2-url-pass@127.0.0.1:9/mcp",
      scope: "global",
    });
    expect(created.status).toBe(201);
    expect(created.body.url).toBe("http://[REDACTED]@127.0.0.1:9/mcp");
    const listed = await kit.api("GET", "/api/mcp-servers");
    expect(JSON.stringify(listed.body)).not.toContain("hunter2-url-pass");
    await kit.api("DELETE", `/api/mcp-servers/${created.body.id}`);
  });
});
