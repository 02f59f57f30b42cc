// `npm run bench [name]`: benchmarks print their own figures and ratios against a baseline measured in
// the same run. Names: sandbox, tools, admission, stream, output, code-nav, hosts, cluster, web, terminal; no name runs
// them all but code-nav, hosts, cluster, web and terminal.
// docs/benchmarks.md says what each measures, its baseline and its target.
//
// A bench reports each figure on a line of its own, `bench-figure {json}`, with the JSON
// {figure, value, unit, baseline?, baselineValue?, target?, ok?}: baseline names what was measured beside it in the
// same run and baselineValue is its value. Those lines are collected here (not echoed) and shown at the end as one
// table with the ratio value / baseline. Exit code 1 when a bench exits non-zero (some do when a figure misses its
// target); an off-target figure is marked NO in the table either way.
import os from "node:os";
import path from "node:path";
import readline from "node:readline";
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const BENCHES = {
  sandbox: ["npx", "tsx", "packages/sandbox/src/bench/sandbox-bench.ts"],
  tools: ["npx", "tsx", "apps/runner/src/bench/tools-bench.ts"],
  admission: ["npx", "tsx", "packages/tools/src/admission/bench.ts"],
  stream: ["npx", "tsx", "apps/runner/src/bench/stream-bench.ts"],
  output: ["npx", "tsx", "apps/runner/src/bench/run-output-bench.ts"],
  "code-nav": ["npx", "tsx", "apps/runner/src/bench/code-nav-bench.ts"],
  hosts: ["npx", "tsx", "packages/sandbox/src/bench/hosts-bench.ts"],
  // Two runners, PostgreSQL, Redis, two Docker engines (root; minutes), then the relayed terminal's keystroke echo
  // (terminal-forward-bench.ts, started by cluster-bench.ts): only when named.
  cluster: ["npx", "tsx", "apps/runner/src/bench/cluster-bench.ts"],
  web: ["node", "apps/web/bench/web-bench.mjs"],
  "web-log": ["node", "apps/web/bench/log-bench.mjs"],
  "web-quick-open": ["npx", "tsx", "apps/web/bench/quick-open-bench.ts"],
  "web-workbench": ["node", "apps/web/bench/workbench-bench.mjs"],
  terminal: ["node", "apps/web/bench/terminal-bench.mjs"],
  // A first setup on a fresh clone (minutes, root): only when named.
  setup: ["node", "scripts/bench-setup.mjs"],
};
const FIGURE_PREFIX = "bench-figure ";

/** Runs one bench, echoing its output and collecting its figures; resolves with its exit code. */
function runBench(name, command, figures) {
  return new Promise((resolve) => {
    const child = spawn(command[0], command.slice(1), { cwd: root, stdio: ["inherit", "pipe", "inherit"] });
    const lines = readline.createInterface({ input: child.stdout });
    lines.on("line", (line) => {
      if (!line.startsWith(FIGURE_PREFIX)) return void process.stdout.write(`${line}\n`);
      try {
        figures.push({ bench: name, ...JSON.parse(line.slice(FIGURE_PREFIX.length)) });
      } catch {
        process.stdout.write(`${line}  (bench.mjs: not a figure, the JSON does not parse)\n`);
      }
    });
    child.on("error", (error) => {
      console.error(`bench:${name} could not start: ${error.message}`);
      resolve(1);
    });
    child.on("close", (code, signal) => resolve(code ?? (signal ? 1 : 0)));
  });
}

/** Three significant digits below 100 (admission's figures are in µs when given in ms), whole numbers above. */
const number = (value) => (Math.abs(value) >= 100 ? value.toFixed(0) : String(Number(value.toPrecision(3))));

/** Every figure of the run as one table: value, the in-run baseline, value / baseline, target, ok. */
function figureTable(figures) {
  const rows = [["bench", "figure", "value", "in-run baseline", "ratio", "target", "ok"]];
  for (const f of figures) {
    const hasBaseline = typeof f.baselineValue === "number" && f.baselineValue > 0;
    rows.push([
      f.bench,
      f.figure,
      `${number(f.value)} ${f.unit ?? ""}`.trim(),
      hasBaseline ? `${f.baseline}: ${number(f.baselineValue)} ${f.unit ?? ""}`.trim() : "—",
      hasBaseline ? `${number(f.value / f.baselineValue)}x` : "—",
      f.target ?? "",
      f.ok === undefined ? "" : f.ok ? "yes" : "NO",
    ]);
  }
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => r[i].length)));
  const line = (r) => `| ${r.map((c, i) => c.padEnd(widths[i])).join(" | ")} |`;
  return [line(rows[0]), `|${widths.map((w) => "-".repeat(w + 2)).join("|")}|`, ...rows.slice(1).map(line)].join("\n");
}

const wanted = process.argv.slice(2);
// web is the IDE page (against a running Berth) and then the workbench on big inputs, each on its own Berth:
// the 100k-line log view, quick open's ranking, quick open and search in the browser on 50k / 10k files.
const GROUPS = { web: ["web", "web-log", "web-quick-open", "web-workbench"] };
const names = (wanted.length ? wanted : ["sandbox", "tools", "admission", "stream", "output"]).flatMap((name) => GROUPS[name] ?? [name]);
for (const name of names) {
  if (!BENCHES[name]) {
    console.error(`unknown bench: ${name} (choose from ${Object.keys(BENCHES).join(", ")})`);
    process.exit(2);
  }
}
const figures = [];
const failed = [];
for (const name of names) {
  console.log(`\n##### bench:${name} #####`);
  if ((await runBench(name, BENCHES[name], figures)) !== 0) failed.push(name);
}
const off = figures.filter((f) => f.ok === false);
console.log(`\n##### figures (${names.join(", ")}; load average ${os.loadavg().map((n) => n.toFixed(2)).join(" ")}) #####\n`);
console.log(figures.length ? figureTable(figures) : "(no bench reported figures)");
if (failed.length) console.log(`\nfailed: ${failed.map((n) => `bench:${n}`).join(", ")}`);
if (off.length) console.log(`off target: ${off.map((f) => `${f.bench} ${f.figure}`).join(", ")}`);
process.exit(failed.length ? 1 : 0);
