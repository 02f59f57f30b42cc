import crypto from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TEST_ADMIN_TOKEN, startTestRunner, type TestRunner } from "../testing/runner-test-kit";

type Result = { ok: boolean; output: string; details?: Record<string, unknown>; error?: { code: string; message: string }; runId?: string; receiptId?: string };

let kit: TestRunner;
let session: string;
const call = async (tool: string, args: unknown) => {
  const { status, body } = await kit.tool<Result>(session, tool, args);
  expect(status).toBe(200);
  return body;
};

beforeAll(async () => {
  kit = await startTestRunner();
  session = await kit.createSession({ autonomy: "trusted" });
});
afterAll(async () => kit?.close());

describe("built-in tools through the runner (real Docker)", () => {
  it("writes, reads, edits and patches files, keeping CRLF", async () => {
    expect((await call("write_file", { path: "src/a.txt", content: "one\r\ntwo\r\n" })).ok).toBe(true);
    const edited = await call("edit", { path: "src/a.txt", old_string: "two\n", new_string: "TWO\n" });
    expect(edited.details).toMatchObject({ replacements: 1 });
    const read = await call("read_file", { path: "src/a.txt" });
    expect(read.details).toMatchObject({ content: "one\r\nTWO\r\n", totalLines: 2 });
    const patched = await call("apply_patch", { patch: "*** Begin Patch\n*** Add File: b.txt\n+hello\n*** Update File: src/a.txt\n@@\n one\n-TWO\n+three\n*** End Patch" });
    expect(patched).toMatchObject({ ok: true, details: { filesChanged: 2 } });
    expect((await call("read_file", { path: "src/a.txt" })).details?.content).toBe("one\r\nthree\r\n");
  });

  it("finds files with glob (**/ matches zero folders) and content with grep", async () => {
    await call("write_file", { path: "top.ts", content: "export const x = 1;\n" });
    await call("write_file", { path: "deep/er/n.ts", content: "const needle = 2;\n" });
    const globbed = await call("glob", { pattern: "**/*.ts" });
    expect(globbed.details?.files).toEqual(["deep/er/n.ts", "top.ts"]);
    const grepped = await call("grep", { pattern: "need+le" });
    expect(grepped.details).toMatchObject({ totalMatches: 1, matches: [{ file: "deep/er/n.ts", line: 1 }] });
    const bad = await call("grep", { pattern: "(" });
    expect(bad.ok).toBe(false);
  });

  it("refuses paths that escape the workspace: .., absolute, and through a symlink", async () => {
    expect((await call("read_file", { path: "../etc/passwd" })).output).toMatch(/Path escapes workspace root: \.\.\/etc\/passwd/);
    expect((await call("read_file", { path: "/etc/passwd" })).output).toMatch(/Path escapes workspace root/);
    await call("bash", { command: "ln -s / rootlink" });
    expect((await call("read_file", { path: "rootlink/etc/passwd" })).output).toMatch(/Path escapes workspace root/);
    const write = await call("write_file", { path: "rootlink/tmp/x", content: "x" });
    expect(write.output).toMatch(/Path escapes workspace root/);
  });

  it("runs bash with stdin closed, a clean environment, and kills the group on timeout", async () => {
    const cat = await call("bash", { command: "cat; echo done" });
    expect(cat.details).toMatchObject({ exitCode: 0, stdout: "done\n" });
    const env = await call("bash", { command: "env | sort | cut -d= -f1 | tr '\\n' ' '" });
    expect(String(env.details?.stdout)).not.toMatch(/BERTH_ADMIN_TOKEN|DATABASE_URL/);
    const slow = await call("bash", { command: "sleep 30 & sleep 30", timeoutMs: 500 });
    expect(slow.details).toMatchObject({ exitCode: -1, timedOut: true });
    expect(String(slow.details?.stderr)).toMatch(/action="?start/);
    const survivors = await call("bash", { command: "pgrep -c sleep || true" });
    expect(String(survivors.details?.stdout).trim()).toBe("0");
  });

  it("caps each stream at 10 MiB keeping head and tail", async () => {
    const big = await call("bash", { command: "head -c 12000000 /dev/zero | tr '\\0' a; echo END", timeoutMs: 60_000 });
    const stdout = String(big.details?.stdout);
    expect(stdout).toMatch(/\[\.\.\. \d+ bytes truncated \.\.\.\]/);
    expect(stdout.endsWith("END\n")).toBe(true);
  });

  it("starts a background process whose full output is readable from any offset", async () => {
    const started = await call("bash", { action: "start", command: "for i in 1 2 3; do echo line$i; done; sleep 0.2" });
    const processId = started.details?.processId as string;
    expect(processId).toMatch(/^proc_[0-9a-f]{32}$/);
    expect(started.runId).toMatch(/^run_/);
    await new Promise((r) => setTimeout(r, 800));
    const logs = await call("bash", { action: "logs", processId, offset: 0 });
    expect(String(logs.details?.content)).toContain("[stdout] line1\n[stdout] line2\n[stdout] line3\n");
    const later = await call("bash", { action: "logs", processId, offset: 15 });
    expect(String(later.details?.content)).toBe(String(logs.details?.content).slice(15));
    const unknown = await call("bash", { action: "status", processId: "proc_00000000000000000000000000000000" });
    expect(unknown.output).toMatch(/Unknown processId/);
  });

  it("tells joined clients which files changed: a path per edit, '.' after a command, nothing for bash list", async () => {
    const socket = await kit.socket();
    await new Promise<void>((resolve, reject) => socket.emit("session:join", { sessionId: session }, (err: unknown) => (err ? reject(new Error(String(err))) : resolve())));
    const seen: string[] = [];
    socket.on("file:changed", (event: { sessionId: string; path: string }) => seen.push(event.path));
    const settle = () => new Promise((r) => setTimeout(r, 300));
    await call("bash", { action: "list" });
    await settle();
    expect(seen).toEqual([]);
    await call("write_file", { path: "notes/changed.txt", content: "x" });
    await call("bash", { command: "true" });
    await settle();
    expect(seen).toEqual(["notes/changed.txt", "."]);
    socket.disconnect();
  });

  it("runs a script as a run with logs and a receipt; env values never stored", async () => {
    await call("write_file", { path: "job.py", content: "import os\nprint('out', os.environ['TOKEN_X'])\nopen('result.txt','w').write('r')\n" });
    const result = await call("run_script", { interpreter: "python3", script: "job.py", env: { TOKEN_X: "s3cret-value" }, outputs: ["result.txt"] });
    expect(result.ok).toBe(true);
    expect(result.output).toMatch(/^run_script succeeded: job\.py \(exit 0, /);
    const run = await kit.api<{ run: { status: string; outcome: string; args: { env: unknown } } }>("GET", `/api/runs/${result.runId}`);
    expect(run.body.run).toMatchObject({ status: "finished", outcome: "succeeded", args: { env: ["TOKEN_X"] } });
    const logs = await kit.api<{ content: string }>("GET", `/api/runs/${result.runId}/logs?stream=stdout`);
    // Env values are secrets the runner knows: masked in the log as it is written (issue 14 item 5).
    expect(logs.body.content).toBe("out [REDACTED]\n");
    const download = await fetch(`${kit.url}/api/runs/${result.runId}/logs?stream=stdout&download=1`, { headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}` } });
    expect(download.headers.get("content-disposition")).toMatch(/attachment/);
    expect(await download.text()).toBe("out [REDACTED]\n");
    const receipt = await kit.api<Record<string, unknown>>("GET", `/api/receipts/${result.receiptId}`);
    expect(JSON.stringify(receipt.body)).not.toContain("s3cret-value");
    expect(JSON.stringify(receipt.body)).toContain('"status":"created"');
  });

  it("hands a script's output over unlinked FIFOs, byte-exact, the script unable to reach them by name", async () => {
    const script = "import os, sys, hashlib\nprint(os.readlink('/proc/self/fd/1'), os.readlink('/proc/self/fd/2'), flush=True)\nblock = bytes(range(256)) * 4096\nfor _ in range(8): sys.stdout.buffer.write(block)\nsys.stdout.flush()\nprint(hashlib.sha256(block * 8).hexdigest(), file=sys.stderr)\n";
    await call("write_file", { path: "fifo.py", content: script });
    const result = await call("run_script", { interpreter: "python3", script: "fifo.py" });
    expect(result.ok).toBe(true);
    const stdout = Buffer.from(await (await fetch(`${kit.url}/api/runs/${result.runId}/logs?stream=stdout&download=1`, { headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}` } })).arrayBuffer());
    const firstLine = stdout.subarray(0, stdout.indexOf(10)).toString();
    // Both ends were FIFOs whose names were gone before the script started (processes/output-fifos.ts).
    expect(firstLine).toMatch(/^\/\S+\/out-[0-9a-f]+ \(deleted\) \/\S+\/out-[0-9a-f]+ \(deleted\)$/);
    const body = stdout.subarray(firstLine.length + 1);
    expect(body.length).toBe(8 * 256 * 4096);
    const stderr = await kit.api<{ content: string }>("GET", `/api/runs/${result.runId}/logs?stream=stderr`);
    expect(crypto.createHash("sha256").update(body).digest("hex")).toBe(stderr.body.content.trim());
  });

  it("refuses bad arguments naming the field, and changes nothing", async () => {
    const wrongType = await call("write_file", { path: 5, content: "x" });
    expect(wrongType).toMatchObject({ ok: false, error: { code: "invalid_arguments" } });
    expect(wrongType.output).toMatch(/path/);
    const missing = await call("edit", { path: "b.txt" });
    expect(missing.output).toMatch(/old_string/);
    const nul = await call("write_file", { path: "a\u0000b", content: "x" });
    expect(nul.output).toMatch(/path/);
    const interpreter = await call("run_script", { interpreter: "/bin/sh", script: "job.py" });
    expect(interpreter.output).toMatch(/^run_script: |interpreter/);
    const listing = await call("glob", { pattern: "**/*" });
    expect(listing.details?.files).not.toContain("a\u0000b");
  });

  it("reaches update_agents_md through the gateway", async () => {
    const found = await call("gateway", { query: "AGENTS.md memory" });
    expect((found.details?.capabilities as { name: string }[])[0]?.name).toBe("update_agents_md");
    const written = await call("gateway", { capability: "update_agents_md", args: { action: "write", content: "# notes\n" } });
    expect(written).toMatchObject({ ok: true, details: { capability: "update_agents_md" } });
    const read = await call("gateway", { op: "call", name: "update_agents_md", args: '{"action":"read"}' });
    expect(read.details).toMatchObject({ content: "# notes\n" });
  });
});
