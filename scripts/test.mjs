// `npm test`: the same setup as `npm start` (no server left running), then every check in order:
// lint, typecheck, unit tests, Docker integration tests and Playwright e2e on SQLite, then the Docker
// integration tests and e2e once more on PostgreSQL (a private server setup starts), and the cluster test (two runners
// on PostgreSQL and Redis, two Docker engines). Exits non-zero on any failure.
import fs from "node:fs";
import path from "node:path";
import { spawnSync } from "node:child_process";
import { stripVTControlCharacters } from "node:util";
import { fileURLToPath } from "node:url";
import { setup, SetupError } from "./lib/setup.mjs";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const dataDir = path.resolve(root, process.env.BERTH_DATA_DIR || ".berth");

let testPostgresUrl;
let testRedisUrl;
try {
  ({ testPostgresUrl, testRedisUrl } = await setup(root, { dataDir, forTests: true }));
} catch (error) {
  process.stderr.write(`npm test: ${error instanceof SetupError ? error.message : (error.stack ?? error)}\n`);
  process.exit(1);
}

// Each test stage also writes a JSON report, so the summary at the end can name what failed (or only passed
// on a retry): CI logs are often read from their tail.
const reports = path.join(root, "test-results", "reports");
const vitestStage = (project, label = project, env = {}) => [
  "npx",
  ["vitest", "run", "--project", project, "--reporter=default", "--reporter=json", `--outputFile.json=${path.join(reports, `${label}.json`)}`],
  { report: path.join(reports, `${label}.json`), kind: "vitest", env },
];
const withTimeout = ([cmd, args, options], timeoutMs) => [cmd, args, { ...options, timeoutMs }];
const playwrightStage = (label, env = {}) => [
  "npx",
  ["playwright", "test"],
  { report: path.join(reports, `${label}.json`), kind: "playwright", env },
];
// The PostgreSQL runs: each Docker test runner makes a database of its own on the server
// (apps/runner/src/testing/test-database.ts); the e2e servers get one fresh database. The Redis test server's
// URL rides along for the cluster tests (several runners on one PostgreSQL and one Redis: testing/two-runners.ts).
const onPostgres = { BERTH_TEST_POSTGRES_URL: testPostgresUrl, BERTH_TEST_REDIS_URL: testRedisUrl };
const e2eOnPostgres = { BERTH_E2E_DATABASE_URL: freshDatabase(testPostgresUrl, "berth_e2e"), BERTH_E2E_DATA_DIR: ".berth/e2e-postgres" };
const stages = [
  ["lint", ["npm", ["run", "lint"]]],
  ["doc links", ["npm", ["run", "check:docs"]]],
  ["typecheck", ["npm", ["run", "typecheck"]]],
  ["unit tests", vitestStage("unit")],
  ["Docker integration tests", vitestStage("docker")],
  ["e2e (Playwright, chromium)", playwrightStage("e2e")],
  ["Docker integration tests on PostgreSQL", vitestStage("docker", "docker-postgres", onPostgres)],
  ["e2e on PostgreSQL", playwrightStage("e2e-postgres", e2eOnPostgres)],
  // Two runners as child processes on one PostgreSQL database and the Redis test server, with two Docker engines
  // (the local one and a dockerd of the test's own in a network namespace, over mutual TLS), nginx in front.
  // Bounded as a whole (every wait in it has its own timeout too): a hang fails the stage, it never stalls CI.
  ["cluster test (two runners, PostgreSQL, Redis, two Docker engines)", withTimeout(vitestStage("cluster", "cluster", onPostgres), 15 * 60_000)],
];

const results = [];
fs.rmSync(reports, { recursive: true, force: true });
fs.mkdirSync(reports, { recursive: true });
for (const [name, [cmd, args, options = {}]] of stages) {
  const started = Date.now();
  process.stdout.write(`\n=== ${name} ===\n`);
  const env = { ...process.env, NEXT_TELEMETRY_DISABLED: "1", ...options.env };
  if (options.kind === "playwright") env.PLAYWRIGHT_JSON_OUTPUT_NAME = options.report;
  const result = spawnSync(cmd, args, { cwd: root, stdio: "inherit", env, timeout: options.timeoutMs, killSignal: "SIGTERM" });
  if (result.error?.code === "ETIMEDOUT") process.stdout.write(`\n${name}: stopped after ${options.timeoutMs / 60_000} min (its time limit)\n`);
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

/** Drops and creates a database on the test server; returns its URL. */
function freshDatabase(adminUrl, name) {
  for (const sql of [`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`, `CREATE DATABASE "${name}"`]) {
    const result = spawnSync("psql", [adminUrl, "-XAtqc", sql], { encoding: "utf8" });
    if (result.status !== 0) {
      process.stderr.write(`npm test: ${sql} on the PostgreSQL test server failed: ${result.stderr}\n`);
      process.exit(1);
    }
  }
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return url.href;
}
