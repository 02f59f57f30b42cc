/* global document, performance, requestAnimationFrame, window, MutationObserver */
// Quick open and search across files on big trees, in Debian's chromium via Playwright, against a Berth of its
// own (scripts/serve.mjs on spare ports, a fresh data dir; build first: `npm run build`).
//
//   quick open   keystroke → list: from each key's keydown to the first animation frame after the palette's list
//                was re-ranked and committed, typing a file's name in a 50,000-file workspace, against the same
//                typing in a 100-file workspace (the baseline: the same page, runner and browser). p50 and p95.
//   search       Enter in the search panel → the first result row on screen, one match among 10,000 files,
//                against `rg -n` for the same string run in the same container through the same API (bash
//                exec, timed from the same Node process). Target ≤ 1.3x.
// Rounds alternate (big, baseline, …); figures are medians over rounds; the load average is printed.
//
//   BENCH_ROUNDS   rounds (default 5)
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { chromium } from "@playwright/test";
import { CHROMIUM_PATH, chromiumArgs } from "../../../scripts/lib/chromium.mjs";
import { loadavg, printFigures, step, waitFor } from "./bench-kit.mjs";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");
const ROUNDS = Math.max(2, Number(process.env.BENCH_ROUNDS || 5));
const RUNNER_PORT = 4295;
const WEB_PORT = 3295;
const TOKEN = "workbench-bench-admin-token-0123456789";
const web = `http://127.0.0.1:${WEB_PORT}`;
const QUERY = "file49999";
// Two needles in two files, alternated, so each search's first row is a new row (another file's).
const NEEDLES = ["needle-b3nch-a", "needle-b3nch-b"];

const sorted = (values) => [...values].sort((a, b) => a - b);
const pct = (values, p) => sorted(values)[Math.min(values.length - 1, Math.max(0, Math.ceil((p / 100) * values.length) - 1))];
const median = (values) => pct(values, 50);


const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "berth-workbench-bench-"));
const serve = spawn(process.execPath, [path.join(root, "scripts/serve.mjs")], {
  cwd: root,
  env: {
    ...process.env,
    BERTH_DATA_DIR: dataDir,
    BERTH_RUNNER_PORT: String(RUNNER_PORT),
    BERTH_WEB_PORT: String(WEB_PORT),
    BERTH_ADMIN_TOKEN: TOKEN,
    BERTH_WARM_POOL: "1",
    BERTH_RUNNER_ID: "workbench-bench",
    BERTH_LOG_LEVEL: "warn",
  },
  stdio: ["ignore", "ignore", "inherit"],
});
const headers = { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" };
const sessions = [];
let browser;

async function createSession(name) {
  const response = await fetch(`${web}/api/sessions`, { method: "POST", headers, body: JSON.stringify({ name, autonomy: "trusted" }) });
  const session = await response.json();
  if (!response.ok) throw new Error(`creating ${name} answered ${response.status}: ${JSON.stringify(session)}`);
  sessions.push(session.id);
  return session.id;
}
async function tool(sessionId, name, args) {
  const response = await fetch(`${web}/api/sessions/${sessionId}/tools/${name}`, { method: "POST", headers, body: JSON.stringify({ args }) });
  return response.json();
}
async function bash(sessionId, command) {
  const result = await tool(sessionId, "bash", { action: "exec", command, timeoutMs: 300_000 });
  if (!result.ok || result.details?.exitCode !== 0) throw new Error(`${command.slice(0, 80)}…: ${result.output}`);
  return result.details.stdout;
}

try {
  await waitFor(async () => (await fetch(`${web}/healthz`).catch(() => null))?.ok, "the web app", 120_000);
  // Each tree in one bash call: `: >` is a builtin, so 50,000 files cost no 50,000 processes.
  const big = await createSession("bench-quick-open-50k");
  const small = await createSession("bench-quick-open-100");
  const search = await createSession("bench-search-10k");
  const tree = (n, dirs) => `mkdir -p q/{0..${dirs - 1}} && for i in $(seq 0 ${n - 1}); do : > q/$((i % ${dirs}))/file$i.ts; done && find q -type f | wc -l`;
  step(`50k tree: ${(await bash(big, tree(50_000, 500))).trim()} files`);
  step(`100 tree: ${(await bash(small, tree(100, 10).replace("file$i.ts", "file$((i + 49900)).ts"))).trim()} files`);
  step(
    `10k search tree: ${(
      await bash(
        search,
        `mkdir -p gen/{0..99} && for i in $(seq 0 9999); do printf 'alpha\\nfiller %d\\n' $i > gen/$((i % 100))/f$i.txt; done && printf 'one\\ntwo\\nthe ${NEEDLES[0]} is here\\n' > gen/42/f4242.txt && printf 'the ${NEEDLES[1]}\\n' > gen/77/f777.txt && find gen -type f | wc -l`,
      )
    ).trim()} files`,
  );

  browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: chromiumArgs() });
  const context = await browser.newContext({ baseURL: web, viewport: { width: 1440, height: 1000 } });
  const signIn = await context.request.post("/api/session", { data: { token: TOKEN } });
  if (!signIn.ok()) throw new Error(`sign-in answered ${signIn.status()}`);
  const pages = {};
  for (const id of [big, small, search]) {
    const page = await context.newPage();
    await page.goto(`/sessions/${id}`);
    await page.locator('[data-testid="socket-status"]', { hasText: "live" }).waitFor({ timeout: 120_000 });
    pages[id] = page;
  }
  // Quick open lists a whole-workspace glob; wait until the 50k one has it (the last file is found).
  // A page behind another gets no animation frames: the one measured is brought to the front first.
  const nextFrames = (page) => page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));
  async function keystrokes(page) {
    await page.bringToFront();
    await page.keyboard.press("Escape");
    await page.keyboard.press("Control+p");
    const input = page.locator('[data-testid="quick-open-input"]');
    await input.waitFor();
    await page.evaluate(() => {
      const times = (window.__keystrokes = []);
      const input = document.querySelector('[data-testid="quick-open-input"]');
      let down = 0;
      input.addEventListener("keydown", (event) => (down = event.timeStamp));
      // A document listener runs after React's root listener has re-ranked and committed the list.
      document.addEventListener("input", () => {
        const from = down;
        requestAnimationFrame(() => times.push(performance.now() - from));
      });
    });
    await input.pressSequentially(QUERY);
    await page.locator('[data-testid="quick-open-item"]').first().waitFor();
    const first = await page.locator('[data-testid="quick-open-item"]').first().getAttribute("data-path");
    if (!first?.endsWith("/file49999.ts")) throw new Error(`quick open ranked ${first} first for ${QUERY}`);
    await nextFrames(page);
    const times = await page.evaluate(() => window.__keystrokes);
    if (times.length !== QUERY.length) throw new Error(`measured ${times.length} of ${QUERY.length} keystrokes`);
    await page.keyboard.press("Escape");
    return times;
  }
  async function searchFirstResult(page, needle) {
    await page.bringToFront();
    await page.keyboard.press("Control+Shift+F");
    const input = page.locator('[data-testid="search-input"]');
    await input.fill(needle);
    const took = page.evaluate(
      () =>
        new Promise((resolve) => {
          const input = document.querySelector('[data-testid="search-input"]');
          let started = 0;
          input.addEventListener("keydown", (event) => (started = event.timeStamp), { once: true });
          // The previous round's rows are marked: the first unmarked row is this search's.
          document.querySelectorAll('[data-testid="search-result"]').forEach((row) => (row.dataset.benchSeen = "1"));
          const seen = () => document.querySelector('[data-testid="search-result"]:not([data-bench-seen])');
          const observer = new MutationObserver(() => {
            if (started && seen()) {
              observer.disconnect();
              resolve(performance.now() - started);
            }
          });
          observer.observe(document.body, { childList: true, subtree: true });
        }),
    );
    await input.press("Enter");
    return took;
  }
  async function rgInContainer(needle) {
    const started = performance.now();
    const out = await bash(search, `rg -n --fixed-strings ${needle} .`);
    if (!out.includes(needle)) throw new Error(`rg found: ${out}`);
    return performance.now() - started;
  }

  const warm = await keystrokes(pages[big]);
  await keystrokes(pages[small]);
  await searchFirstResult(pages[search], NEEDLES[1]);
  await rgInContainer(NEEDLES[1]);
  step(`warm-up done (${warm.length} keystrokes measured)`);
  const bigKeys = [];
  const smallKeys = [];
  const panel = [];
  const rg = [];
  for (let r = 0; r < ROUNDS; r++) {
    bigKeys.push(...(await keystrokes(pages[big])));
    smallKeys.push(...(await keystrokes(pages[small])));
    const needle = NEEDLES[r % 2];
    panel.push(await searchFirstResult(pages[search], needle));
    rg.push(await rgInContainer(needle));
    step(`round ${r + 1}/${ROUNDS}: keystroke p50 ${median(bigKeys).toFixed(1)} ms; search ${panel.at(-1).toFixed(0)} ms vs rg ${rg.at(-1).toFixed(0)} ms`);
  }
  console.log(`quick open and search (load average ${loadavg()})`);
  console.log(
    `  quick open, 50,000 files   keystroke → list p50 ${median(bigKeys).toFixed(1)} ms, p95 ${pct(bigKeys, 95).toFixed(1)} ms  vs 100-file baseline p50 ${median(smallKeys).toFixed(1)} ms, p95 ${pct(smallKeys, 95).toFixed(1)} ms  (p50 ratio ${(median(bigKeys) / median(smallKeys)).toFixed(2)}x; target p50 ≤ 100 ms)`,
  );
  console.log(
    `  search, 10,000 files       first result ${median(panel).toFixed(0)} ms  vs rg in the same container ${median(rg).toFixed(0)} ms  (ratio ${(median(panel) / median(rg)).toFixed(2)}x; target ≤ 1.3x)`,
  );
  printFigures([
    { figure: "quick open, 50k files, keystroke → list p50", value: median(bigKeys), unit: "ms", baseline: "100-file workspace", baselineValue: median(smallKeys), target: "≤ 100 ms", ok: median(bigKeys) <= 100 },
    { figure: "search, 10k files, first result", value: median(panel), unit: "ms", baseline: "rg in the same container", baselineValue: median(rg), target: "ratio ≤ 1.3", ok: median(panel) / median(rg) <= 1.3 },
  ]);
} finally {
  await browser?.close();
  for (const id of sessions) await fetch(`${web}/api/sessions/${id}`, { method: "DELETE", headers }).catch(() => undefined);
  serve.kill("SIGTERM");
  await new Promise((resolve) => serve.once("exit", resolve));
  fs.rmSync(dataDir, { recursive: true, force: true });
}
