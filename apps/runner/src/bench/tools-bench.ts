// npm run bench:tools — tool latencies through the real runner and Docker, with in-process baselines.
// `npx tsx apps/runner/src/bench/tools-bench.ts --hot-path` runs only the hot-path figures (no 200 MB workspace).
import os from "node:os";
import { startTestRunner } from "../testing/runner-test-kit";
import { percentile, row, timeMany } from "./bench-stats";
import { measureHotPath } from "./tools-hot-path";

type Result = { ok: boolean; output: string; details?: Record<string, unknown> };

const kit = await startTestRunner();
try {
  const session = await kit.createSession({ autonomy: "yolo" });
  const call = async (tool: string, args: unknown) => (await kit.tool<Result>(session, tool, args)).body;

  console.log(
    `load average before: ${os
      .loadavg()
      .map((n) => n.toFixed(2))
      .join(" ")}`,
  );
  for (const figure of await measureHotPath(kit, session)) console.log(`bench-figure ${JSON.stringify(figure)}`);
  console.log(
    `load average after the hot path: ${os
      .loadavg()
      .map((n) => n.toFixed(2))
      .join(" ")}`,
  );
  if (!process.argv.includes("--hot-path")) await workspaceFigures(call);
} finally {
  await kit.close();
}

/** grep over a generated 20k-file workspace against rg in the same container, and the other tools' latencies. */
async function workspaceFigures(call: (tool: string, args: unknown) => Promise<Result>): Promise<void> {
  console.log("generating a workspace of 20,000 files / 200 MB …");
  await call("write_file", {
    path: "gen.py",
    content: [
      "import os, random",
      "random.seed(7)",
      "words = ['alpha','beta','gamma','delta','epsilon','zeta','theta','kappa']",
      "for d in range(200):",
      "    os.makedirs(f'big/d{d}', exist_ok=True)",
      "    for f in range(100):",
      "        lines = [' '.join(random.choice(words) for _ in range(12)) for _ in range(170)]",
      "        if (d * 100 + f) % 997 == 0: lines[50] = 'needle_marker found here'",
      "        open(f'big/d{d}/f{f}.txt', 'w').write('\\n'.join(lines) + '\\n')",
    ].join("\n"),
  });
  const gen = await call("run_script", { interpreter: "python3", script: "gen.py", timeoutMs: 900_000 });
  if (!gen.ok) throw new Error(`workspace generation failed: ${gen.output}`);
  const size = await call("bash", { command: "du -sm big | cut -f1; find big -type f | wc -l", timeoutMs: 120_000 });
  console.log(`workspace: ${String(size.details?.stdout).trim().replace("\n", " MB, ")} files`);

  // Warm the page cache once for both sides, then alternate them.
  await call("grep", { pattern: "needle_marker", path: "big" });
  const grepTool: number[] = [];
  const rgDirect: number[] = [];
  for (let i = 0; i < 9; i++) {
    const started = performance.now();
    const viaTool = await call("grep", { pattern: "needle_marker", path: "big", maxResults: 100 });
    grepTool.push(performance.now() - started);
    if (!viaTool.ok) throw new Error(viaTool.output);
    const direct = await call("bash", {
      command: "TIMEFORMAT=%R; time rg --json needle_marker big > /dev/null",
      timeoutMs: 120_000,
    });
    rgDirect.push(Number.parseFloat(String(direct.details?.stderr).trim()) * 1000);
  }

  const bashTrue = await timeMany(30, () => call("bash", { command: "true" }));
  await call("write_file", { path: "four-k.txt", content: "x".repeat(4096) });
  const read4k = await timeMany(50, () => call("read_file", { path: "four-k.txt" }));
  const write4k = await timeMany(50, (i) => call("write_file", { path: `w/${i % 5}.txt`, content: "y".repeat(4096) }));

  const original = Array.from({ length: 1000 }, (_, i) => `line ${i}`).join("\n") + "\n";
  const hunks = Array.from(
    { length: 50 },
    (_, h) => `@@\n line ${h * 20 + 5}\n-line ${h * 20 + 6}\n+changed ${h * 20 + 6}\n line ${h * 20 + 7}`,
  ).join("\n");
  const patchTimes = await timeMany(5, async (i) => {
    await call("write_file", { path: `patch${i}.txt`, content: original });
    const started = performance.now();
    const result = await call("apply_patch", {
      patch: `*** Begin Patch\n*** Update File: patch${i}.txt\n${hunks}\n*** End Patch`,
    });
    if (!result.ok) throw new Error(result.output);
    return performance.now() - started;
  });

  console.log("\nBerth tools bench (through the runner's HTTP API, real Docker)\n");
  console.log(row("grep tool, 20k files / 200 MB", grepTool));
  console.log(row("rg run directly in the same container", rgDirect));
  console.log(
    `${"  ratio grep tool / rg direct (target ≤ 1.3)".padEnd(44)} ${(percentile(grepTool, 50) / percentile(rgDirect, 50)).toFixed(2)}`,
  );
  console.log(row("bash exec `true`", bashTrue));
  console.log(row("read_file 4 KiB", read4k));
  console.log(row("write_file 4 KiB", write4k));
  console.log(row("apply_patch, 50 hunks (HTTP incl.)", patchTimes));
  console.log(
    "\nNote: the grep tool time includes the HTTP round trip, admission and the agent RPC; rg direct is rg's own wall time.",
  );
  const grepRatio = percentile(grepTool, 50) / percentile(rgDirect, 50);
  const p50 = (samples: number[]) => percentile(samples, 50);
  for (const figure of [
    {
      figure: "grep tool p50, 20k files / 200 MB",
      value: p50(grepTool),
      unit: "ms",
      baseline: "rg direct in the container",
      baselineValue: p50(rgDirect),
      target: "ratio ≤ 1.3",
      ok: grepRatio <= 1.3,
    },
    { figure: "bash exec `true` p50", value: p50(bashTrue), unit: "ms" },
    { figure: "read_file 4 KiB p50", value: p50(read4k), unit: "ms" },
    { figure: "write_file 4 KiB p50", value: p50(write4k), unit: "ms" },
    { figure: "apply_patch 50 hunks p50", value: p50(patchTimes), unit: "ms" },
  ])
    console.log(`bench-figure ${JSON.stringify(figure)}`);
}
