/* global performance, document, window, addEventListener, MutationObserver, requestAnimationFrame */
// `npm run bench:web`: how fast the IDE page becomes usable, in Debian's chromium via Playwright, against a
// server that is already running (`npm start`, or `node scripts/serve.mjs`).
//
//   BERTH_WEB_URL   web app origin (default http://127.0.0.1:$BERTH_WEB_PORT or :3000)
//   BERTH_TOKEN     a developer/admin token (default BERTH_ADMIN_TOKEN, else <BERTH_DATA_DIR>/admin-token)
//   BENCH_RUNS      samples per figure (default 5; the median is printed)
//   BENCH_CHROME_UI 1 keeps the work Chromium does for its own UI in each new window (scripts/lib/chromium.mjs
//                   says why it is left out by default), to see what it costs
//
// First visits use a fresh browser context each (empty cache); returning visits share one context (warm
// HTTP and code caches). Both are signed in by cookie, and each figure is the median of BENCH_RUNS.
//
// Times are taken inside the page, from navigation start, by a MutationObserver installed before the page
// loads: the moment the DOM first shows each state, as a user would see it. Playwright's own round trips
// (each wait and click is several messages between processes on the same 2 cores) add 0.3-0.7 s that no
// user waits for; "as Playwright sees it" keeps that figure for comparison with earlier notes.
//   dom content loaded   DOMContentLoaded
//   interactive IDE      the file tree listed and the live socket connected
//   Monaco ready         the editor created, a file asked for from then on opening in it (data-monaco-ready:
//                        set by the page's early script, which keeps a tree click made before hydration)
//   editor adopted       the React editor has taken it over (data-editor-adopted)
//   file open            click on main.py → its text on screen in the editor
//   all, as Playwright sees it   navigation → interactive seen → click → text seen by Playwright
//
// Baseline, in the same browser: Monaco alone, on an empty page of the same origin in a fresh context
// (the editor's files requested at once, as the IDE page does, evaluated, one editor created with
// main.py's text), alternated with the first visits. The ratio says how much the IDE page adds to what
// Monaco itself costs here; the load average is printed with it.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { chromium } from "@playwright/test";
import { CHROMIUM_PATH, chromiumArgs } from "../../../scripts/lib/chromium.mjs";

const env = process.env;
const base = (env.BERTH_WEB_URL || `http://127.0.0.1:${env.BERTH_WEB_PORT || 3000}`).replace(/\/$/, "");
const runs = Math.max(1, Number(env.BENCH_RUNS || 5));

function findToken() {
  if (env.BERTH_TOKEN) return env.BERTH_TOKEN;
  if (env.BERTH_ADMIN_TOKEN) return env.BERTH_ADMIN_TOKEN;
  const file = path.resolve(env.BERTH_DATA_DIR || ".berth", "admin-token");
  if (fs.existsSync(file)) return fs.readFileSync(file, "utf8").trim();
  return null;
}

function fail(message) {
  process.stderr.write(`bench:web: ${message}\n`);
  process.exit(1);
}

const token = findToken();
if (!token) fail("no token: set BERTH_TOKEN (or BERTH_ADMIN_TOKEN), or run from the repo root where .berth/admin-token exists");

try {
  const health = await fetch(`${base}/healthz`, { signal: AbortSignal.timeout(5000) });
  if (!health.ok) fail(`${base}/healthz answered ${health.status}: is the runner up?`);
} catch (error) {
  fail(`${base} does not answer (${error.message}); start Berth first (npm start) or set BERTH_WEB_URL`);
}

const headers = { authorization: `Bearer ${token}`, "content-type": "application/json" };
async function api(method, route, body) {
  const response = await fetch(`${base}${route}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await response.text();
  if (!response.ok) fail(`${method} ${route} → ${response.status} ${text.slice(0, 200)}`);
  return text ? JSON.parse(text) : null;
}

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};

const loadBefore = os.loadavg()[0];
const session = await api("POST", "/api/sessions", { name: `bench-web-${Date.now()}`, autonomy: "trusted" });
await api("POST", `/api/sessions/${session.id}/tools/write_file`, { args: { path: "main.py", content: "for i in range(3):\n    print(i)\n" } });

const browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: chromiumArgs({ chromeUi: env.BENCH_CHROME_UI === "1" }) });
const url = new URL(base);
const external = new Set();

/**
 * Installed before the page's own scripts: records when the DOM first reaches each state, and lets the
 * bench wait for one with a single call (`until`) rather than with Playwright's polling, which would run
 * in the page's main thread while it loads.
 */
function recordMilestones() {
  const seen = {};
  const waiting = [];
  const now = () => performance.now();
  const settle = () => {
    for (const waiter of waiting.splice(0)) {
      if (seen[waiter.name] !== undefined) waiter.resolve(seen[waiter.name]);
      else waiting.push(waiter);
    }
  };
  window.__berthMilestones = {
    seen,
    until: (name, timeoutMs) =>
      new Promise((resolve, reject) => {
        waiting.push({ name, resolve });
        settle();
        setTimeout(() => reject(new Error(`the page did not reach "${name}" within ${timeoutMs} ms`)), timeoutMs);
      }),
  };
  addEventListener("click", () => (seen.click ??= now()), { capture: true });
  new MutationObserver(() => {
    const file = document.querySelector('[data-testid="tree-file"][data-path="main.py"]');
    const live = document.querySelector('[data-testid="socket-status"]')?.textContent?.includes("live");
    if (file && live) seen.interactive ??= now();
    if (document.querySelector("[data-monaco-ready]")) seen.monaco ??= now();
    if (document.querySelector("[data-editor-adopted]")) seen.adopted ??= now();
    if (seen.click && document.querySelector(".monaco-editor .view-lines")?.textContent?.includes("print")) seen.text ??= now();
    settle();
  }).observe(document, { subtree: true, childList: true, characterData: true, attributes: true });
}

const until = (page, name) => page.evaluate((name) => window.__berthMilestones.until(name, 60_000), name);

/** One visit: navigation start → tree listed and socket live → Monaco mounted; then main.py clicked → its text in Monaco. */
async function visit(context) {
  const page = await context.newPage();
  page.on("request", (request) => {
    const host = new URL(request.url()).hostname;
    if (!["127.0.0.1", "localhost", url.hostname].includes(host) && !request.url().startsWith("data:") && !request.url().startsWith("blob:")) external.add(request.url());
  });
  await page.addInitScript(recordMilestones);
  await page.goto(`${base}/sessions/${session.id}`, { waitUntil: "commit" });
  await until(page, "interactive");
  await page.locator('[data-testid="tree-file"][data-path="main.py"]').click();
  await until(page, "monaco");
  await until(page, "adopted");
  await until(page, "text");
  const playwright = await page.evaluate(() => performance.now());
  const seen = await page.evaluate(() => window.__berthMilestones.seen);
  const dcl = await page.evaluate(() => performance.getEntriesByType("navigation")[0]?.domContentLoadedEventEnd ?? 0);
  // editor.js first, then its chunks (lib/preloads.tsx names them to the page).
  const editorFiles = await page.evaluate(() =>
    [...document.querySelectorAll('link[rel="modulepreload"][href*="/_next/static/monaco/"]')].map((link) => link.href).sort((a, b) => b.endsWith("/editor.js") - a.endsWith("/editor.js")),
  );
  await page.close();
  return { dcl, interactive: seen.interactive, monaco: seen.monaco, adopted: seen.adopted, open: seen.text - seen.click, playwright, editorFiles };
}

/** The baseline: milliseconds from asking for Monaco's files to an editor showing text, on an empty page. */
async function monacoAlone(context, files) {
  const page = await context.newPage();
  await page.goto(`${base}/healthz`);
  const ms = await page.evaluate(async (files) => {
    const started = performance.now();
    for (const href of files.slice(1)) document.head.append(Object.assign(document.createElement("link"), { rel: "modulepreload", href }));
    document.head.append(Object.assign(document.createElement("link"), { rel: "stylesheet", href: files[0].replace(/editor\.js$/, "editor.css") }));
    const { default: monaco } = await import(files[0]);
    const host = Object.assign(document.createElement("div"), { style: "width: 900px; height: 500px" });
    document.body.replaceChildren(host);
    monaco.editor.create(host, { value: "for i in range(3):\n    print(i)\n", language: "python" });
    while (!host.querySelector(".view-lines")?.textContent?.includes("print")) await new Promise((resolve) => requestAnimationFrame(resolve));
    return performance.now() - started;
  }, files);
  await page.close();
  return ms;
}

async function signedInContext() {
  const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
  // Signs in as the login page does: a browser session of its own (the token is never a cookie).
  const response = await context.request.post(`${url.origin}/api/session`, { data: { token }, headers: { origin: url.origin } });
  if (!response.ok()) fail(`sign-in failed: ${response.status()} ${await response.text()}`);
  return context;
}

const figures = () => ({ dcl: [], interactive: [], monaco: [], adopted: [], open: [], playwright: [] });
const first = figures();
const returning = figures();
const alone = [];
const record = (into, sample) => {
  for (const key of Object.keys(into)) into[key].push(sample[key]);
};
try {
  // First visits: a fresh context each (empty HTTP cache, no compiled code), after one warm-up visit so
  // the server's first-render costs are not in the figures. Each round is one first visit and one
  // Monaco-alone page, alternated, so both see the machine as loaded as the other.
  for (let i = 0; i <= runs; i++) {
    const context = await signedInContext();
    const sample = await visit(context);
    if (i > 0) record(first, sample);
    const editorFiles = sample.editorFiles;
    await context.close();
    if (editorFiles.length === 0) fail("the IDE page named no editor files (link[rel=modulepreload] under /_next/static/monaco/)");
    if (i === 0) continue;
    const bare = await browser.newContext({ viewport: { width: 1440, height: 900 } });
    alone.push(await monacoAlone(bare, editorFiles));
    await bare.close();
  }
  // Returning visits: one context, as a developer who opens the IDE every day (HTTP cache and V8's code
  // cache warm after two visits).
  const context = await signedInContext();
  for (let i = 0; i < runs + 2; i++) {
    const sample = await visit(context);
    if (i >= 2) record(returning, sample);
  }
  await context.close();
} finally {
  await browser.close();
  await fetch(`${base}/api/sessions/${session.id}`, { method: "DELETE", headers }).catch(() => undefined);
}

const fmt = (ms) => `${Math.round(ms)} ms`.padStart(9);
const row = (name, values) => `${name.padEnd(28)} ${fmt(median(values))} ${fmt(Math.min(...values))} ${fmt(Math.max(...values))}`;
const table = (title, samples) => {
  console.log(title);
  console.log(`${"".padEnd(28)} ${"median".padStart(9)} ${"min".padStart(9)} ${"max".padStart(9)}`);
  console.log(row("dom content loaded", samples.dcl));
  console.log(row("interactive IDE", samples.interactive));
  console.log(row("Monaco ready", samples.monaco));
  console.log(row("editor adopted by React", samples.adopted));
  console.log(row("file open", samples.open));
  console.log(row("all, as Playwright sees it", samples.playwright));
};
const browserNote = env.BENCH_CHROME_UI === "1" ? "with Chromium's own UI work per window (BENCH_CHROME_UI=1)" : "Chromium's own UI per window left out";
table(`IDE page load, first visit: ${runs} fresh contexts (after one warm-up), Debian chromium (${browserNote}), ${base}`, first);
table(`IDE page load, returning visit: ${runs} visits in one context (after two warm-ups)`, returning);
console.log(`baseline, Monaco alone on an empty page (fresh context): median ${fmt(median(alone)).trim()}, min ${fmt(Math.min(...alone)).trim()}, max ${fmt(Math.max(...alone)).trim()}`);
console.log(`Monaco ready in the IDE / Monaco alone: first visit ${(median(first.monaco) / median(alone)).toFixed(2)}x, returning ${(median(returning.monaco) / median(alone)).toFixed(2)}x`);
console.log(`editor adopted by React / Monaco alone: first visit ${(median(first.adopted) / median(alone)).toFixed(2)}x, returning ${(median(returning.adopted) / median(alone)).toFixed(2)}x`);
console.log(`load average ${loadBefore.toFixed(1)} → ${os.loadavg()[0].toFixed(1)} on ${os.cpus().length} CPUs`);
console.log(`requests outside ${url.hostname}: ${external.size === 0 ? "none" : [...external].join(", ")}`);
for (const [visit, samples] of [["first", first], ["returning", returning]]) {
  const figure = { figure: `IDE ${visit} visit, Monaco ready`, value: median(samples.monaco), unit: "ms", baseline: "Monaco alone", baselineValue: median(alone) };
  console.log(`bench-figure ${JSON.stringify(figure)}`);
}
if (external.size > 0) process.exit(1);
