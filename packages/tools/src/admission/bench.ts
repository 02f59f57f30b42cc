import { loadavg } from "node:os";
import { pathToFileURL } from "node:url";
import { parse } from "unbash";
import { BuiltinTool, type Autonomy, type Decision, type PolicyRule } from "@berth/protocol";
import { admit } from "./admit";
import type { AdmissionContext, AdmissionRegistry } from "./admit";
import { classifyCommand, loadCommandCorpus } from "../shell";
import { LoopGuard } from "./loop-guard";

/**
 * `npm run bench:admission`: admission overhead per call (target p50 ≤ 0.2 ms) and classification
 * throughput over 10,000 generated commands; then the recursive shell analysis over the real-world
 * corpus (testdata/commands.txt): per-command p50/p95 against parsing alone in the same run, and the
 * share that asks before (every substitution asked) and after (substitutions classified like any
 * command). Figures only; nothing here asserts on time.
 */

export interface AdmissionBenchResult {
  commands: number;
  /** Whole run: commands / total time (sensitive to a busy machine). */
  classifyPerSecond: number;
  /** Median of 20 batches' rates: steadier when other processes compete for the CPU. */
  classifyPerSecondMedianBatch: number;
  classifyMeanUs: number;
  classifyP50Us: number;
  admitCalls: number;
  admitP50Ms: number;
  admitP95Ms: number;
  admitP99Ms: number;
  /** Share of verdicts, to show the mix was realistic. */
  verdicts: Record<string, number>;
}

// A small deterministic PRNG so every run classifies the same mix.
function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

const PATHS = [
  "src/index.ts",
  "package.json",
  "README.md",
  "src/lib/util.ts",
  "tests/test_api.py",
  "docs/a b.md",
  "build",
  "dist/*.js",
];
const WORDS = ["TODO", "fixme", "useState", "def main", "import", "error", "Berth"];

/** A realistic mix: mostly reads, tests and builds, some compounds, a few risky or tricky lines. */
export function generateCommands(count: number, seed = 42): string[] {
  const random = rng(seed);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
  const templates: Array<() => string> = [
    () => `ls -la ${pick(["", "src", "tests", "/workspace"])}`,
    () => `cat ${pick(PATHS)}`,
    () => `grep -rn "${pick(WORDS)}" ${pick(["src", ".", "tests"])} | head -n ${Math.floor(random() * 50)}`,
    () => `rg -n --glob '*.ts' ${pick(WORDS).replace(" ", "_")}`,
    () => `git ${pick(["status", "diff --stat", "log --oneline -20", "show HEAD", "branch -a", "diff HEAD~1 -- src"])}`,
    () => `npm ${pick(["test", "run build", "run lint", "run typecheck", "test -- --run"])}`,
    () => `cd ${pick(["packages/tools", "apps/web", "src"])} && npm test 2>&1 | tail -n 40`,
    () => `python -m pytest -q ${pick(["", "tests/test_api.py", "-k smoke"])}`,
    () => `go test ./... -run ${pick(["TestA", "TestB"])}`,
    () => `cargo ${pick(["build", "test", "clippy -- -D warnings"])}`,
    () => `find . -name '*.${pick(["ts", "py", "go"])}' -not -path './node_modules/*' | wc -l`,
    () => `mkdir -p out && echo "${pick(WORDS)}" > out/log.txt`,
    () => `for f in src/*.ts; do wc -l "$f"; done`,
    () => `if [ -f package.json ]; then npm run build; else make; fi`,
    () => `rm -rf ${pick(["build", "dist", "node_modules/.cache"])}`,
    () => `curl -sSL https://example.com/${pick(["a", "b"])}.json -o data.json`,
    () => `sudo ${pick(["apt-get update", "rm -rf /var/cache", "ls /root"])}`,
    () => `echo "built at $(date)" >> build.log`,
    () => `bash -c "${pick(["npm test", "sudo x", "ls | wc -l"])}"`,
    () => `git ${pick(["push origin main", "push --force", "reset --hard HEAD~1", "clean -fdx", "pull --rebase"])}`,
    () => `pip install ${pick(["requests", "-r requirements.txt", "--user black"])}`,
    () => `env NODE_ENV=test timeout 60 npm test -- --reporter=dot > /dev/null`,
    () => `python3 scripts/${pick(["train", "eval", "prep"])}.py --epochs ${Math.floor(random() * 10)}`,
    () => `cat ${pick(PATHS)} | sort | uniq -c | sort -rn | head`,
  ];
  // Weights: the first dozen templates (reads, tests, builds) dominate, as in real sessions.
  const weights = templates.map((_, i) => (i < 12 ? 6 : 1));
  const total = weights.reduce((a, b) => a + b, 0);
  const out: string[] = [];
  for (let n = 0; n < count; n++) {
    let r = random() * total;
    let i = 0;
    while ((r -= weights[i]!) > 0) i++;
    out.push(templates[i]!());
  }
  return out;
}

const percentile = (sorted: readonly number[], p: number): number =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;

const registry: AdmissionRegistry = {
  has: (tool) => tool === BuiltinTool.bash || tool === BuiltinTool.read_file,
  validate: (_tool, args) => ({ ok: true, args }),
  actionClassOf: (tool) => (tool === BuiltinTool.read_file ? "read" : "execute"),
};

const RULES: PolicyRule[] = [
  { id: "no-deploy", tool: "bash", commandPrefix: "npm run deploy", effect: "deny", mustMatch: [], mustNotMatch: [] },
  { id: "ask-docker", tool: "*", commandPrefix: "docker", effect: "ask", mustMatch: [], mustNotMatch: [] },
  { id: "allow-make", tool: "bash", commandPrefix: "make", effect: "allow", mustMatch: [], mustNotMatch: [] },
];

export function runAdmissionBench(options: { commands?: number; print?: boolean } = {}): AdmissionBenchResult {
  const count = options.commands ?? 10_000;
  const commands = generateCommands(count);
  const opts = { workspaceRoot: "/workspace" };

  // Warm up the JIT before timing anything.
  for (const c of commands.slice(0, 2000)) classifyCommand(c, opts);

  const perCommand: number[] = [];
  const batchRates: number[] = [];
  const batch = Math.max(1, Math.floor(count / 20));
  const started = performance.now();
  for (let i = 0; i < commands.length; i += batch) {
    const batchStart = performance.now();
    for (const c of commands.slice(i, i + batch)) {
      const t0 = performance.now();
      classifyCommand(c, opts);
      perCommand.push(performance.now() - t0);
    }
    batchRates.push(Math.min(batch, commands.length - i) / ((performance.now() - batchStart) / 1000));
  }
  const classifyMs = performance.now() - started;
  perCommand.sort((a, b) => a - b);
  batchRates.sort((a, b) => a - b);

  const ctx: AdmissionContext = {
    registry,
    autonomy: "default",
    workspaceRoot: "/workspace",
    policyRules: RULES,
    loopGuard: new LoopGuard(),
  };
  const timings: number[] = [];
  const verdicts: Record<string, number> = {};
  commands.forEach((command, i) => {
    // One call in ten is a plain read_file: the common non-shell case. A session per 50 calls keeps
    // the loop guard working (and counted) without the generated repeats tripping it.
    const sessionId = `bench-${Math.floor(i / 50)}`;
    const call =
      i % 10 === 0
        ? { sessionId, tool: "read_file", args: { path: `src/file${i}.ts` }, caller: "agent" as const }
        : { sessionId, tool: "bash", args: { command, timeoutMs: 30_000 }, caller: "agent" as const };
    const t0 = performance.now();
    const result = admit(call, ctx);
    timings.push(performance.now() - t0);
    verdicts[result.verdict] = (verdicts[result.verdict] ?? 0) + 1;
  });
  timings.sort((a, b) => a - b);

  const result: AdmissionBenchResult = {
    commands: count,
    classifyPerSecond: Math.round(count / (classifyMs / 1000)),
    classifyPerSecondMedianBatch: Math.round(percentile(batchRates, 50)),
    classifyMeanUs: Math.round((classifyMs / count) * 1000 * 10) / 10,
    classifyP50Us: Math.round(percentile(perCommand, 50) * 1000 * 10) / 10,
    admitCalls: timings.length,
    admitP50Ms: round(percentile(timings, 50)),
    admitP95Ms: round(percentile(timings, 95)),
    admitP99Ms: round(percentile(timings, 99)),
    verdicts,
  };
  if (options.print ?? true) {
    console.log(`admission bench (${count} generated commands)`);
    console.log(
      `  classification: ${result.classifyPerSecond.toLocaleString("en")} commands/s over the run, ` +
        `${result.classifyPerSecondMedianBatch.toLocaleString("en")} commands/s median batch ` +
        `(per command p50 ${result.classifyP50Us} µs, mean ${result.classifyMeanUs} µs)`,
    );
    console.log(
      `  admit() overhead per call: p50 ${result.admitP50Ms} ms (target ≤ 0.2 ms), p95 ${result.admitP95Ms} ms, p99 ${result.admitP99Ms} ms`,
    );
    console.log(
      `  verdicts: ${Object.entries(verdicts)
        .map(([k, v]) => `${k} ${v}`)
        .join(", ")}`,
    );
    printFigures([
      { figure: "classification of generated commands", value: result.classifyPerSecond, unit: "commands/s" },
      {
        figure: "admit() overhead per call p50",
        value: result.admitP50Ms,
        unit: "ms",
        target: "≤ 0.2 ms",
        ok: result.admitP50Ms <= 0.2,
      },
    ]);
  }
  return result;
}

const round = (ms: number): number => Math.round(ms * 10_000) / 10_000;

export interface AskShare {
  /** Commands that ask; a share is `asks / commands`. */
  before: number;
  after: number;
}

export interface CorpusBenchResult {
  commands: number;
  /** Of which with at least one `$(…)`, backtick or `<(…)`. */
  withSubstitutions: number;
  rounds: number;
  /** Full classification per command: medians over alternated rounds of each round's percentile. */
  classifyP50Ms: number;
  classifyP95Ms: number;
  /** The baseline: unbash parsing the same command, timed in the same rounds. */
  parseP50Ms: number;
  parseP95Ms: number;
  /** Verdicts of bash calls with no policy rules, at `default` and at `yolo`. */
  asks: Record<"default" | "yolo", AskShare>;
  /** The same at `default`, among the commands with substitutions only. */
  asksWithSubstitutionsAtDefault: AskShare;
  loadAverage: number[];
}

const CORPUS_OPTS = { workspaceRoot: "/workspace", writableRoots: ["/tmp"] };

/**
 * Verdicts for one command at `autonomy`: as admitted now, and by the old rule (a substitution
 * anywhere asked at every level), computed from the same classification.
 */
export function verdictsBeforeAfter(command: string, autonomy: Autonomy): { before: Decision; after: Decision } {
  const ctx: AdmissionContext = { registry, autonomy, workspaceRoot: "/workspace", writableRoots: ["/tmp"] };
  const after = admit({ sessionId: "bench", tool: "bash", args: { command }, caller: "agent" }, ctx).verdict;
  const substituted = classifyCommand(command, CORPUS_OPTS).substitutions > 0;
  // The old rule asked after every deny (autonomy, policy) and before every allow.
  return { before: substituted && after !== "deny" ? "ask" : after, after };
}

export function askShares(commands: readonly string[], autonomy: Autonomy): AskShare {
  const share: AskShare = { before: 0, after: 0 };
  for (const command of commands) {
    const { before, after } = verdictsBeforeAfter(command, autonomy);
    if (before === "ask") share.before++;
    if (after === "ask") share.after++;
  }
  return share;
}

const median = (values: readonly number[]): number =>
  percentile(
    [...values].sort((a, b) => a - b),
    50,
  );

export function runCorpusBench(
  options: { rounds?: number; print?: boolean; commands?: readonly string[] } = {},
): CorpusBenchResult {
  const commands = options.commands ?? loadCommandCorpus();
  const rounds = options.rounds ?? 15;
  for (let i = 0; i < 3; i++) for (const c of commands) classifyCommand(c, CORPUS_OPTS); // warm up the JIT
  const timeEach = (fn: (command: string) => unknown): { p50: number; p95: number } => {
    const times = commands.map((command) => {
      const t0 = performance.now();
      fn(command);
      return performance.now() - t0;
    });
    times.sort((a, b) => a - b);
    return { p50: percentile(times, 50), p95: percentile(times, 95) };
  };
  const classify: { p50: number; p95: number }[] = [];
  const parsed: { p50: number; p95: number }[] = [];
  for (let r = 0; r < rounds; r++) {
    // Alternate which goes first so neither always runs on a warmer cache.
    const pair = [
      () => classify.push(timeEach((c) => classifyCommand(c, CORPUS_OPTS))),
      () => parsed.push(timeEach((c) => parse(c))),
    ];
    if (r % 2 === 1) pair.reverse();
    for (const run of pair) run();
  }
  const substituted = commands.filter((c) => classifyCommand(c, CORPUS_OPTS).substitutions > 0);
  const result: CorpusBenchResult = {
    commands: commands.length,
    withSubstitutions: substituted.length,
    rounds,
    classifyP50Ms: round(median(classify.map((t) => t.p50))),
    classifyP95Ms: round(median(classify.map((t) => t.p95))),
    parseP50Ms: round(median(parsed.map((t) => t.p50))),
    parseP95Ms: round(median(parsed.map((t) => t.p95))),
    asks: { default: askShares(commands, "default"), yolo: askShares(commands, "yolo") },
    asksWithSubstitutionsAtDefault: askShares(substituted, "default"),
    loadAverage: loadavg().map((l) => Math.round(l * 100) / 100),
  };
  if (options.print ?? true) {
    const pct = (n: number) => `${((100 * n) / result.commands).toFixed(1)}% (${n})`;
    const ratio = (a: number, b: number) => (b > 0 ? `${(a / b).toFixed(2)}×` : "n/a");
    console.log(
      `\nrecursive shell analysis over the corpus (${result.commands} real-world commands, ${result.withSubstitutions} with substitutions; ${rounds} alternated rounds, medians)`,
    );
    console.log(`  load average: ${result.loadAverage.join(" ")}`);
    console.log(
      `  classify per command: p50 ${result.classifyP50Ms} ms (target ≤ 0.2 ms), p95 ${result.classifyP95Ms} ms; ` +
        `baseline unbash parse alone: p50 ${result.parseP50Ms} ms, p95 ${result.parseP95Ms} ms; ` +
        `ratio p50 ${ratio(result.classifyP50Ms, result.parseP50Ms)}, p95 ${ratio(result.classifyP95Ms, result.parseP95Ms)}`,
    );
    for (const autonomy of ["default", "yolo"] as const) {
      const { before, after } = result.asks[autonomy];
      console.log(`  asks at ${autonomy}: before (every substitution asked) ${pct(before)}, after ${pct(after)}`);
    }
    const sub = result.asksWithSubstitutionsAtDefault;
    console.log(
      `  of the ${result.withSubstitutions} with substitutions, asking at default: before ${sub.before}, after ${sub.after}`,
    );
    printFigures([
      {
        figure: "classify per corpus command p50",
        value: result.classifyP50Ms,
        unit: "ms",
        baseline: "unbash parse alone",
        baselineValue: result.parseP50Ms,
        target: "≤ 0.2 ms",
        ok: result.classifyP50Ms <= 0.2,
      },
    ]);
  }
  return result;
}

/** `npm run bench`'s machine-readable lines (scripts/bench.mjs collects them into its table). */
function printFigures(figures: Record<string, unknown>[]): void {
  for (const figure of figures) console.log(`bench-figure ${JSON.stringify(figure)}`);
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  runAdmissionBench();
  runCorpusBench();
}
