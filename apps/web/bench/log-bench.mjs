/* global document, performance, requestAnimationFrame */
// The run page's log view on a 100k-line ANSI log, in Debian's chromium via Playwright, against a Berth of
// its own (scripts/serve.mjs on spare ports, a fresh data dir; build first: `npm run build`).
//
//   first lines   from page.goto to the first log row on screen, for a run that printed 100,000 coloured
//                 lines, against the same page for a run of 1,000 such lines (the baseline: the same page,
//                 runner and browser, with a log 100x smaller). Rounds alternate; medians over rounds.
//   scrolling     60 animation frames, each scrolling the log by 300 px (15 new rows a frame, in both logs); p50 and p95 frame time, big log
//                 against the baseline log; and how many rows are in the DOM (virtualised: a window's worth).
//
//   BENCH_ROUNDS   rounds (default 5)     BENCH_LINES   lines in the big log (default 100000)
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { chromium } from "@playwright/test";
import { CHROMIUM_PATH, chromiumArgs } from "../../../scripts/lib/chromium.mjs";
import { loadavg, printFigures, step, waitFor } from "./bench-kit.mjs";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");
const env = process.env;
const ROUNDS = Math.max(2, Number(env.BENCH_ROUNDS || 5));
const LINES = Math.max(1000, Number(env.BENCH_LINES || 100_000));
const RUNNER_PORT = 4294;
const WEB_PORT = 3294;
const TOKEN = "log-bench-admin-token-0123456789abcdef";
const web = `http://127.0.0.1:${WEB_PORT}`;

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};


const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "berth-log-bench-"));
const serve = spawn(process.execPath, [path.join(root, "scripts/serve.mjs")], {
  cwd: root,
  env: {
    ...env,
    BERTH_DATA_DIR: dataDir,
    BERTH_RUNNER_PORT: String(RUNNER_PORT),
    BERTH_WEB_PORT: String(WEB_PORT),
    BERTH_ADMIN_TOKEN: TOKEN,
    BERTH_WARM_POOL: "1",
    BERTH_RUNNER_ID: "log-bench",
    BERTH_LOG_LEVEL: "warn",
  },
  stdio: ["ignore", "ignore", "inherit"],
});
let browser;
let session;
const headers = { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" };
const tool = async (name, args) =>
  (
    await fetch(`${web}/api/sessions/${session.id}/tools/${name}`, {
      method: "POST",
      headers,
      body: JSON.stringify({ args }),
    })
  ).json();

try {
  await waitFor(async () => (await fetch(`${web}/healthz`).catch(() => null))?.ok, "the web app", 120_000);
  session = await (
    await fetch(`${web}/api/sessions`, {
      method: "POST",
      headers,
      body: JSON.stringify({ name: "bench-log", autonomy: "trusted" }),
    })
  ).json();
  // Coloured lines with a \r progress frame in each, as CI logs look; one folded ::group:: at the start.
  const script = [
    "import sys",
    "n = int(sys.argv[1])",
    "w = sys.stdout.write",
    "w('::group::setup\\nsetup line\\n::endgroup::\\n')",
    "for i in range(n):",
    "    w('\\x1b[3%dmline %d\\x1b[0m step\\r\\x1b[32mline %d done\\x1b[0m\\n' % (i % 8, i + 1, i + 1))",
  ].join("\n");
  await tool("write_file", { path: "log.py", content: `${script}\n` });
  const big = await tool("run_script", { interpreter: "python3", script: "log.py", args: [String(LINES)] });
  const small = await tool("run_script", { interpreter: "python3", script: "log.py", args: [String(LINES / 100)] });
  if (!big.ok || !small.ok) throw new Error(`the runs failed: ${big.output ?? ""} ${small.output ?? ""}`);
  step(`runs done: ${LINES} and ${LINES / 100} lines`);

  browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: chromiumArgs() });
  const context = await browser.newContext({ baseURL: web, viewport: { width: 1440, height: 1000 } });
  const signIn = await context.request.post("/api/session", { data: { token: TOKEN } });
  if (!signIn.ok()) throw new Error(`sign-in answered ${signIn.status()}`);
  const page = await context.newPage();

  async function firstLines(runId) {
    const started = performance.now();
    await page.goto(`/runs/${runId}`);
    await page.locator('[data-testid="log-line"]').first().waitFor({ state: "visible", timeout: 60_000 });
    return performance.now() - started;
  }
  async function scrolling() {
    return page.evaluate(async () => {
      const viewport = document.querySelector('[data-testid="log-viewport"]');
      const frames = [];
      let last = performance.now();
      for (let i = 0; i < 60; i++) {
        viewport.scrollTop += 300;
        await new Promise((resolve) => requestAnimationFrame(resolve));
        const now = performance.now();
        frames.push(now - last);
        last = now;
      }
      return { frames, rows: document.querySelectorAll('[data-testid="log-line"]').length };
    });
  }

  await firstLines(small.runId);
  await firstLines(big.runId);
  const bigFirst = [];
  const smallFirst = [];
  const bigFrames = [];
  const smallFrames = [];
  let rows = 0;
  for (let r = 0; r < ROUNDS; r++) {
    bigFirst.push(await firstLines(big.runId));
    const b = await scrolling();
    bigFrames.push(...b.frames);
    rows = Math.max(rows, b.rows);
    smallFirst.push(await firstLines(small.runId));
    smallFrames.push(...(await scrolling()).frames);
    step(
      `round ${r + 1}/${ROUNDS}: first lines ${bigFirst.at(-1).toFixed(0)} ms vs ${smallFirst.at(-1).toFixed(0)} ms`,
    );
  }
  const pct = (values, p) =>
    [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.ceil((p / 100) * values.length) - 1)];
  const mBig = median(bigFirst);
  const mSmall = median(smallFirst);
  console.log(`log view (${LINES} ANSI lines; load average ${loadavg()})`);
  console.log(
    `  first lines   ${mBig.toFixed(0)} ms  vs ${LINES / 100}-line baseline ${mSmall.toFixed(0)} ms  (ratio ${(mBig / mSmall).toFixed(2)}x; target ≤ 1000 ms)`,
  );
  console.log(
    `  scroll frame  p50 ${pct(bigFrames, 50).toFixed(1)} ms, p95 ${pct(bigFrames, 95).toFixed(1)} ms  vs baseline p50 ${pct(smallFrames, 50).toFixed(1)} ms, p95 ${pct(smallFrames, 95).toFixed(1)} ms  (p95 ratio ${(pct(bigFrames, 95) / pct(smallFrames, 95)).toFixed(2)}x)`,
  );
  console.log(`  rows in the DOM while scrolling the big log: ${rows} (of ${LINES})`);
  printFigures([
    { figure: `log view first lines, ${LINES} lines`, value: mBig, unit: "ms", baseline: `${LINES / 100}-line log`, baselineValue: mSmall, target: "≤ 1000 ms", ok: mBig <= 1000 },
    { figure: "log view scroll frame p95", value: pct(bigFrames, 95), unit: "ms", baseline: `${LINES / 100}-line log`, baselineValue: pct(smallFrames, 95) },
  ]);
} finally {
  await browser?.close();
  if (session) await fetch(`${web}/api/sessions/${session.id}`, { method: "DELETE", headers }).catch(() => undefined);
  serve.kill("SIGTERM");
  await new Promise((resolve) => serve.once("exit", resolve));
  fs.rmSync(dataDir, { recursive: true, force: true });
}
