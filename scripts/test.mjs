// `npm test`: the same setup as `npm start` (no server left running), then every check in order:
// lint, typecheck, unit tests, Docker integration tests, Playwright e2e. Exits non-zero on any failure.
import fs from "node:fs";
import path from "node:path";
import { spawnSync } from "node:child_process";
import { stripVTControlCharacters } from "node:util";
import { fileURLToPath } from "node:url";
import { setup, SetupError } from "./lib/setup.mjs";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const dataDir = path.resolve(root, process.env.BERTH_DATA_DIR || ".berth");

try {
  await setup(root, { dataDir, forTests: true });
} catch (error) {
  process.stderr.write(`npm test: ${error instanceof SetupError ? error.message : (error.stack ?? error)}\n`);
  process.exit(1);
}

// Each test stage also writes a JSON report, so the summary at the end can name what failed (or only passed
// on a retry): CI logs are often read from their tail.
const reports = path.join(root, "test-results", "reports");
const vitestStage = (project) => [
  "npx",
  ["vitest", "run", "--project", project, "--reporter=default", "--reporter=json", `--outputFile.json=${path.join(reports, `${project}.json`)}`],
  { report: path.join(reports, `${project}.json`), kind: "vitest" },
];
const stages = [
  ["lint", ["npm", ["run", "lint"]]],
  ["doc links", ["npm", ["run", "check:docs"]]],
  ["typecheck", ["npm", ["run", "typecheck"]]],
  ["unit tests", vitestStage("unit")],
  ["Docker integration tests", vitestStage("docker")],
  ["e2e (Playwright, chromium)", ["npx", ["playwright", "test"], { report: path.join(reports, "e2e.json"), kind: "playwright" }]],
];

const results = [];
fs.rmSync(reports, { recursive: true, force: true });
fs.mkdirSync(reports, { recursive: true });
for (const [name, [cmd, args, options = {}]] of stages) {
  const started = Date.now();
  process.stdout.write(`\n=== ${name} ===\n`);
  const env = { ...process.env, NEXT_TELEMETRY_DISABLED: "1" };
  if (options.kind === "playwright") env.PLAYWRIGHT_JSON_OUTPUT_NAME = options.report;
  const result = spawnSync(cmd, args, { cwd: root, stdio: "inherit", env });
  const findings = options.report ? readFindings(options.kind, options.report) : { failed: [], flaky: [] };
  results.push({ name, ok: result.status === 0, seconds: (Date.now() - started) / 1000, ...findings });
}

process.stdout.write("\n=== summary ===\n");
for (const r of results) {
  process.stdout.write(`${r.ok ? "PASS" : "FAIL"}  ${r.name} (${r.seconds.toFixed(1)} s)\n`);
  for (const f of r.failed) process.stdout.write(`      failed: ${f}\n`);
  for (const f of r.flaky) process.stdout.write(`      passed only on a retry: ${f}\n`);
}
const failed = results.filter((r) => !r.ok).length;
process.stdout.write(`${results.length - failed} passed, ${failed} failed\n`);
process.exit(failed ? 1 : 0);

/** Failed and retried tests from a stage's JSON report, one line each with the first line of the error. */
function readFindings(kind, file) {
  let report;
  try {
    report = JSON.parse(fs.readFileSync(file, "utf8"));
  } catch {
    return { failed: [], flaky: [] };
  }
  const firstLine = (text) => stripVTControlCharacters(String(text ?? "")).split("\n").find((l) => l.trim()) ?? "";
  const failed = [];
  const flaky = [];
  if (kind === "vitest") {
    for (const file of report.testResults ?? []) {
      const where = path.relative(root, file.name);
      if (file.status === "failed" && !(file.assertionResults ?? []).some((t) => t.status === "failed"))
        failed.push(`${where}: ${firstLine(file.message)}`);
      for (const t of file.assertionResults ?? []) {
        if (t.status === "failed") failed.push(`${where} › ${t.fullName}: ${firstLine(t.failureMessages?.[0])}`);
        // A test that passed on a retry keeps the errors of the attempts that failed.
        else if (t.status === "passed" && (t.failureMessages ?? []).length > 0)
          flaky.push(`${where} › ${t.fullName}: ${firstLine(t.failureMessages[0])}`);
      }
    }
  } else {
    const walk = (suite, titles) => {
      for (const spec of suite.specs ?? []) {
        const name = [...titles, spec.title].filter(Boolean).join(" › ");
        for (const test of spec.tests ?? []) {
          if (test.status === "unexpected") failed.push(`${name}: ${firstLine(test.results?.at(-1)?.error?.message)}`);
          else if (test.status === "flaky") flaky.push(name);
        }
      }
      for (const child of suite.suites ?? []) walk(child, [...titles, child.title]);
    };
    for (const suite of report.suites ?? []) walk(suite, [suite.title]);
  }
  return { failed: failed.slice(0, 20), flaky: flaky.slice(0, 20) };
}
