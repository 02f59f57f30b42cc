// `npm test`: the same setup as `npm start` (no server left running), then every check in order:
// lint, typecheck, unit tests, Docker integration tests, Playwright e2e. Exits non-zero on any failure.
import path from "node:path";
import { spawnSync } from "node:child_process";
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

const stages = [
  ["lint", ["npm", "run", "lint"]],
  ["doc links", ["npm", "run", "check:docs"]],
  ["typecheck", ["npm", "run", "typecheck"]],
  ["unit tests", ["npx", "vitest", "run", "--project", "unit"]],
  ["Docker integration tests", ["npx", "vitest", "run", "--project", "docker"]],
  ["e2e (Playwright, chromium)", ["npx", "playwright", "test"]],
];

const results = [];
for (const [name, [cmd, ...args]] of stages) {
  const started = Date.now();
  process.stdout.write(`\n=== ${name} ===\n`);
  const result = spawnSync(cmd, args, { cwd: root, stdio: "inherit", env: { ...process.env, NEXT_TELEMETRY_DISABLED: "1" } });
  results.push({ name, ok: result.status === 0, seconds: (Date.now() - started) / 1000 });
}

process.stdout.write("\n=== summary ===\n");
for (const r of results) process.stdout.write(`${r.ok ? "PASS" : "FAIL"}  ${r.name} (${r.seconds.toFixed(1)} s)\n`);
const failed = results.filter((r) => !r.ok).length;
process.stdout.write(`${results.length - failed} passed, ${failed} failed\n`);
process.exit(failed ? 1 : 0);
