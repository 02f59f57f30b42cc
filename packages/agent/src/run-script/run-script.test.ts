import { createHash } from "node:crypto";
import { mkdir, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { RunScriptDetails } from "@berth/protocol";
import { createToolHarness, errorOf, type ToolHarness } from "../test-support/tool-harness";
import { decideOutcome } from "./run-script";

let h: ToolHarness;
let eventsPath: string;
beforeEach(async () => {
  // A fake cgroup memory.events file, so the test decides when an OOM kill "happened".
  eventsPath = path.join(tmpdir(), `berth-memory-events-${process.pid}-${Math.random().toString(16).slice(2)}`);
  await writeFile(eventsPath, "oom 0\noom_kill 0\n");
  h = await createToolHarness({ BERTH_MEMORY_EVENTS: eventsPath });
});
afterEach(async () => {
  await h.cleanup();
  await rm(eventsPath, { force: true });
});

const put = async (rel: string, content: string) => {
  await mkdir(path.dirname(path.join(h.root, rel)), { recursive: true });
  await writeFile(path.join(h.root, rel), content);
};
const sha = (text: string) => createHash("sha256").update(text).digest("hex");
const run = async (args: Record<string, unknown>, options?: Parameters<ToolHarness["call"]>[2]) => {
  const result = await h.call("run_script", args, options);
  return { result, details: result.details as unknown as RunScriptDetails };
};

describe("run_script execution", () => {
  it("runs python unbuffered with args in cwd, hashes script, inputs and outputs", async () => {
    const script =
      "import sys, os\nprint('args', sys.argv[1:], 'unbuffered', sys.stdout.write_through)\nopen('out.txt','w').write(open('in.txt').read().upper())\nopen('same.txt','w').write('same')\n";
    await put("scripts/job.py", script);
    await put("data/in.txt", "hello");
    await put("data/same.txt", "same");
    await put("data/old.txt", "old");
    const { result, details } = await run({
      interpreter: "python3",
      script: "scripts/job.py",
      args: ["a", "b c"],
      cwd: "data",
      inputs: ["data/in.txt", "data/missing.txt"],
      outputs: ["data/out.txt", "data/same.txt", "data/old.txt", "data/never.txt"],
    });
    expect(result.output).toMatch(/^run_script succeeded/);
    expect(result.ok).toBe(true);
    expect(details.outcome).toBe("succeeded");
    expect(details.command).toContain("-u");
    expect(details.stdoutTail).toBe("args ['a', 'b c'] unbuffered True\n");
    expect(details.scriptSha256).toBe(sha(script));
    expect(details.inputs).toEqual([
      { path: "data/in.txt", sha256: sha("hello"), bytes: 5 },
      { path: "data/missing.txt", sha256: null, bytes: null, note: "absent" },
    ]);
    expect(details.outputs.map((o) => [o.path, o.status])).toEqual([
      ["data/out.txt", "created"],
      ["data/same.txt", "unchanged"],
      ["data/old.txt", "unchanged"],
      ["data/never.txt", "absent"],
    ]);
    expect(details.outputs[0]?.sha256).toBe(sha("HELLO"));
    expect(details).toMatchObject({
      exitCode: 0,
      signal: null,
      stdoutBytes: 34,
      stderrBytes: 0,
      timedOut: false,
      oomKilled: false,
      cwd: "data",
    });
    expect(result.output).toMatch(/^run_script succeeded: scripts\/job\.py \(exit 0, \d+\.\ds\)\n/);
    expect(result.output).toContain("outputs: data/out.txt created, data/same.txt unchanged");
  });

  it("marks modified outputs and streams live output with offsets", async () => {
    await put("w.sh", "echo new > o.txt; printf one; sleep 0.05; printf two >&2");
    await put("o.txt", "old\n");
    const { details } = await run({ interpreter: "bash", script: "w.sh", outputs: ["o.txt"] }, { callId: "rs-1" });
    expect(details.outputs[0]).toMatchObject({ status: "modified", sha256Before: sha("old\n"), sha256: sha("new\n") });
    const out = h.notifications.filter((n) => n.method === "output" && n.params.callId === "rs-1");
    expect(
      out.map((n) => [n.params.stream, n.params.offset, (n.params.data as Buffer).toString()]),
    ).toEqual([
      ["stdout", 0, "one"],
      ["stderr", 0, "two"],
    ]);
  });

  it("reports failed with the exit code and keeps only the last 8 KiB of each stream", async () => {
    await put("f.sh", "head -c 20000 /dev/zero | tr '\\0' x; echo; echo tail-marker; echo bad >&2; exit 3");
    const { result, details } = await run({ interpreter: "bash", script: "f.sh" });
    expect(result.ok).toBe(false);
    expect(result.error).toEqual({
      code: "failed",
      message: expect.stringMatching(/^run_script failed: f\.sh \(exit 3, /),
    });
    expect(details.stdoutBytes).toBe(20001 + 12);
    expect(Buffer.byteLength(details.stdoutTail)).toBe(8192);
    expect(details.stdoutTail.endsWith("tail-marker\n")).toBe(true);
    expect(result.output).toContain("stdout (last 8 KiB of 20013 bytes):");
    expect(details.stderrTail).toBe("bad\n");
  });

  it("times out, killing the group", async () => {
    await put("slow.sh", "sleep 20");
    const { result, details } = await run({ interpreter: "bash", script: "slow.sh", timeoutMs: 200 });
    expect(details).toMatchObject({ outcome: "timed-out", timedOut: true });
    expect(result.output).toMatch(/^run_script timed-out: slow\.sh \(exit 143, 0\.\ds\)/);
  });

  it("is aborted by the call's signal", async () => {
    await put("slow.sh", "sleep 20");
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);
    const { details } = await run({ interpreter: "bash", script: "slow.sh" }, { signal: controller.signal });
    expect(details.outcome).toBe("aborted");
  });

  it("is oom-killed when SIGKILL comes with a new oom_kill event", async () => {
    await put("oom.sh", `echo 'oom_kill 1' > "$1"; kill -9 $$`);
    expect((await run({ interpreter: "bash", script: "oom.sh", args: [eventsPath] })).details).toMatchObject({
      outcome: "oom-killed",
      signal: "SIGKILL",
      oomKilled: true,
    });
    await put("kill.sh", "kill -9 $$");
    expect((await run({ interpreter: "bash", script: "kill.sh" })).details).toMatchObject({
      outcome: "failed",
      signal: "SIGKILL",
      oomKilled: false,
    });
  });

  it("is spawn-failed when the interpreter is not on PATH", async () => {
    await put("x.sh", "true");
    const { result, details } = await run({ interpreter: "bash", script: "x.sh", env: { PATH: "/nonexistent" } });
    expect(details).toMatchObject({ outcome: "spawn-failed", spawnError: "interpreter bash was not found on PATH" });
    expect(result.output).toMatch(/^run_script spawn-failed: x\.sh \(exit -1/);
  });

  it("is cleanup-incomplete when descendants outlive a clean exit", async () => {
    await put("bg.sh", "sleep 30 >/dev/null 2>&1 &\nexit 0");
    const { details } = await run({ interpreter: "bash", script: "bg.sh" });
    expect(details.outcome).toBe("cleanup-incomplete");
    expect(details.survivors).toBeGreaterThan(0);
  });

  it("passes env to the script but stores only its keys", async () => {
    await put("e.sh", 'test "$API_TOKEN" = s3cret-value && echo ok');
    const { result, details } = await run({ interpreter: "bash", script: "e.sh", env: { API_TOKEN: "s3cret-value" } });
    expect(details.stdoutTail).toBe("ok\n");
    expect(details.envKeys).toEqual(["API_TOKEN"]);
    expect(JSON.stringify(result)).not.toContain("s3cret-value");
  });

  it("orders outcomes by precedence", () => {
    const base = {
      aborted: false,
      timedOut: false,
      signal: null,
      spawnError: undefined,
      exitCode: 0,
      survivors: 0,
    } as const;
    expect(decideOutcome({ ...base, aborted: true, timedOut: true }, true)).toBe("aborted");
    expect(decideOutcome({ ...base, timedOut: true }, true)).toBe("timed-out");
    expect(decideOutcome({ ...base, exitCode: null, signal: "SIGKILL" }, true)).toBe("oom-killed");
    expect(decideOutcome({ ...base, exitCode: null, spawnError: "x" }, false)).toBe("spawn-failed");
    expect(decideOutcome({ ...base, survivors: 1 }, false)).toBe("cleanup-incomplete");
    expect(decideOutcome({ ...base, exitCode: 1, survivors: 1 }, false)).toBe("failed");
    expect(decideOutcome(base, false)).toBe("succeeded");
  });
});

describe("run_script refusals", () => {
  beforeEach(() => put("ok.py", "print(1)"));
  const refuse = async (args: Record<string, unknown>) =>
    errorOf(await h.call("run_script", { interpreter: "python3", script: "ok.py", ...args }));

  it("refuses interpreters outside the allowlist and non-bare names", async () => {
    expect(await refuse({ interpreter: "/usr/bin/python3" })).toBe(
      'run_script: interpreter: must be one of python3, python, node, bash, sh, Rscript, julia, perl, ruby, octave as a bare name (got "/usr/bin/python3")',
    );
    expect(await refuse({ interpreter: "php" })).toMatch(/^run_script: interpreter: must be one of .* \(got "php"\)$/);
  });

  it("enforces the caps on args, inputs, outputs, env and timeoutMs", async () => {
    expect(await refuse({ args: Array.from({ length: 65 }, () => "a") })).toBe(
      "run_script: args: must have at most 64 items (got 65)",
    );
    expect(await refuse({ interpreterArgs: ["x".repeat(4097)] })).toBe(
      "run_script: interpreterArgs[0]: must be at most 4096 bytes (got 4097 bytes)",
    );
    expect(await refuse({ args: ["a\0b"] })).toBe('run_script: args[0]: must not contain NUL bytes (got "a\\u0000b")');
    expect(await refuse({ inputs: Array.from({ length: 65 }, (_, i) => `f${i}`) })).toBe(
      "run_script: inputs: must have at most 64 items (got 65)",
    );
    expect(await refuse({ outputs: Array.from({ length: 65 }, (_, i) => `f${i}`) })).toBe(
      "run_script: outputs: must have at most 64 items (got 65)",
    );
    expect(await refuse({ env: { lower: "x" } })).toMatch(
      /^run_script: env\.lower: key must match \^\[A-Z_\]\[A-Z0-9_\]\*\$ \(got "lower"\)/,
    );
    expect(await refuse({ env: { BIG: "x".repeat(4097) } })).toBe(
      "run_script: env.BIG: value must be at most 4096 bytes (got 4097 bytes)",
    );
    expect(await refuse({ env: Object.fromEntries(Array.from({ length: 33 }, (_, i) => [`K${i}`, "v"])) })).toBe(
      "run_script: env: must have at most 32 keys (got 33)",
    );
    expect(await refuse({ timeoutMs: 0 })).toBe("run_script: timeoutMs: must be at least 1 (got 0)");
    expect(await refuse({ timeoutMs: 1.5 })).toBe(
      "run_script: timeoutMs: must be a whole number of milliseconds (got 1.5)",
    );
  });

  it("clamps timeoutMs to six hours and accepts arrays sent as JSON strings or single strings", async () => {
    const result = await h.call("run_script", {
      interpreter: "python3",
      script: "ok.py",
      timeoutMs: 99_999_999,
      args: '["x", "y"]',
      inputs: "ok.py",
    });
    const d = result.details as unknown as RunScriptDetails;
    expect(d.timeoutMs).toBe(21_600_000);
    expect(d.args).toEqual(["x", "y"]);
    expect(d.inputs.map((i) => i.path)).toEqual(["ok.py"]);
  });

  it("refuses a script or cwd outside the workspace, or missing, before running anything", async () => {
    expect(await refuse({ script: "../x.py" })).toBe(
      'run_script: script must resolve inside the workspace root (got "../x.py"): Path escapes workspace root: ../x.py',
    );
    expect(await refuse({ script: "missing.py" })).toBe(
      'run_script: script must be an existing file in the workspace (got "missing.py")',
    );
    expect(await refuse({ cwd: "/" })).toMatch(/^run_script: cwd must resolve inside the workspace root/);
    expect(await refuse({ outputs: ["../../etc/passwd"] })).toMatch(
      /^run_script: outputs\[0\] must resolve inside the workspace root/,
    );
    expect(h.notifications).toEqual([]);
  });
});

describe("run_script runs the bytes it checked", () => {
  it("gives each interpreter its own path as __file__/__filename/$0, and cwd as asked", async () => {
    await put(
      "sub/p.py",
      "import sys, os\nprint(__file__, sys.argv[1:], os.path.basename(sys.path[0]), os.getcwd().endswith('data'))\n",
    );
    await put("sub/n.js", "console.log(__filename, process.argv.slice(2).join(','), require.main === module)\n");
    await put("sub/b.sh", 'echo "$0 $1 $#"\n');
    await put("sub/pl.pl", 'print "$ARGV[0]\\n";\n');
    await mkdir(path.join(h.root, "data"), { recursive: true });
    const py = await run({ interpreter: "python3", script: "sub/p.py", args: ["x"], cwd: "data" });
    expect(py.details.stdoutTail).toBe(`${path.join(h.root, "sub/p.py")} ['x'] sub True\n`);
    const node = await run({ interpreter: "node", script: "sub/n.js", args: ["a", "--inspect"] });
    expect(node.details.stdoutTail).toBe(`${path.join(h.root, "sub/n.js")} a,--inspect true\n`);
    await put("sub/lib.mjs", "export const x = 41;\n");
    await put("sub/m.mjs", 'import { x } from "./lib.mjs";\nconsole.log(import.meta.url, x + 1, typeof require);\n');
    const esm = await run({ interpreter: "node", script: "sub/m.mjs" });
    expect(esm.details.stdoutTail).toBe(`file://${path.join(h.root, "sub/m.mjs")} 42 undefined\n`);
    for (const interpreter of ["bash", "sh"]) {
      const sh = await run({ interpreter, script: "sub/b.sh", args: ["one"] });
      expect(sh.details.stdoutTail).toBe(`${path.join(h.root, "sub/b.sh")} one 1\n`);
    }
    const perl = await run({ interpreter: "perl", script: "sub/pl.pl", args: ["arg"] });
    expect(perl.details.stdoutTail).toBe("arg\n");
  });

  it("runs the approved bytes and refuses, running nothing, when the script or an input changed", async () => {
    await put("s.sh", "echo approved > ran.txt\n");
    await put("in.txt", "v1");
    const expect1 = { "s.sh": sha("echo approved > ran.txt\n"), "in.txt": sha("v1") };
    const ok = await run({ interpreter: "bash", script: "s.sh", inputs: ["in.txt"] }, { expect: expect1 });
    expect(ok.details.outcome).toBe("succeeded");

    await put("s.sh", "echo rewritten > ran.txt\n");
    await rm(path.join(h.root, "ran.txt"));
    const refused = await run({ interpreter: "bash", script: "s.sh", inputs: ["in.txt"] }, { expect: expect1 });
    expect(refused.result.ok).toBe(false);
    expect(refused.details.outcome).toBe("refused");
    expect(refused.result.error?.message).toBe(
      `run_script: s.sh changed since approval (approved sha256 ${sha("echo approved > ran.txt\n")}, now ${sha("echo rewritten > ran.txt\n")})`,
    );
    await expect(stat(path.join(h.root, "ran.txt"))).rejects.toThrow();

    await put("s.sh", "echo approved > ran.txt\n");
    await put("in.txt", "v2");
    const input = await run({ interpreter: "bash", script: "s.sh", inputs: ["in.txt"] }, { expect: expect1 });
    expect(input.details.outcome).toBe("refused");
    expect(input.result.error?.message).toBe(
      `run_script: in.txt changed since approval (approved sha256 ${sha("v1")}, now ${sha("v2")})`,
    );
    await expect(stat(path.join(h.root, "ran.txt"))).rejects.toThrow();
  });
});
