/* global performance */
// `npm run bench:web`: how fast the IDE page becomes usable, in Debian's chromium via Playwright, against a
// server that is already running (`npm start`, or `node scripts/serve.mjs`).
//
//   BERTH_WEB_URL   web app origin (default http://127.0.0.1:$BERTH_WEB_PORT or :3000)
//   BERTH_TOKEN     a developer/admin token (default BERTH_ADMIN_TOKEN, else <BERTH_DATA_DIR>/admin-token)
//   BENCH_RUNS      samples per figure (default 5; the median is printed)
//
// First visits use a fresh browser context each (empty cache); returning visits share one context (warm
// HTTP and code caches). Both are signed in by cookie, and each figure is the median of BENCH_RUNS:
//   dom content loaded   navigation start → DOMContentLoaded
//   interactive IDE      navigation start → file tree listed and the live socket connected
//   Monaco ready         navigation start → file opened and the editor mounted (click included)
import fs from "node:fs";
import path from "node:path";
import { chromium } from "@playwright/test";

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

const session = await api("POST", "/api/sessions", { name: `bench-web-${Date.now()}`, autonomy: "trusted" });
await api("POST", `/api/sessions/${session.id}/tools/write_file`, { args: { path: "main.py", content: "for i in range(3):\n    print(i)\n" } });

const browser = await chromium.launch({
  executablePath: env.CHROMIUM_PATH || "/usr/bin/chromium",
  args: ["--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
});
const url = new URL(base);
const external = new Set();

/** One visit: navigation start → tree listed and socket live → file clicked → its text in Monaco. */
async function visit(context) {
  const page = await context.newPage();
  page.on("request", (request) => {
    const host = new URL(request.url()).hostname;
    if (!["127.0.0.1", "localhost", url.hostname].includes(host) && !request.url().startsWith("data:") && !request.url().startsWith("blob:")) external.add(request.url());
  });
  await page.goto(`${base}/sessions/${session.id}`, { waitUntil: "commit" });
  await page.locator('[data-testid="tree-file"][data-path="main.py"]').waitFor({ timeout: 60_000 });
  await page.locator('[data-testid="socket-status"]:text("live")').waitFor({ timeout: 60_000 });
  const interactive = await page.evaluate(() => performance.now());
  await page.locator('[data-testid="tree-file"][data-path="main.py"]').click();
  await page.locator("[data-monaco-ready]").waitFor({ timeout: 60_000 });
  await page.locator(".monaco-editor .view-lines").getByText("print").first().waitFor({ timeout: 60_000 });
  const monaco = await page.evaluate(() => performance.now());
  const dcl = await page.evaluate(() => performance.getEntriesByType("navigation")[0]?.domContentLoadedEventEnd ?? 0);
  await page.close();
  return { dcl, interactive, monaco };
}

async function signedInContext() {
  const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
  await context.addCookies([{ name: "berth_token", value: token, domain: url.hostname, path: "/", httpOnly: true, sameSite: "Lax" }]);
  return context;
}

const first = { dcl: [], interactive: [], monaco: [] };
const returning = { dcl: [], interactive: [], monaco: [] };
const record = (into, sample) => {
  for (const key of Object.keys(into)) into[key].push(sample[key]);
};
try {
  // First visits: a fresh context each (empty HTTP cache, no compiled code), after one warm-up visit so
  // the server's first-render costs are not in the figures.
  for (let i = 0; i <= runs; i++) {
    const context = await signedInContext();
    const sample = await visit(context);
    if (i > 0) record(first, sample);
    await context.close();
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
const row = (name, values) => `${name.padEnd(20)} ${fmt(median(values))} ${fmt(Math.min(...values))} ${fmt(Math.max(...values))}`;
const table = (title, samples) => {
  console.log(title);
  console.log(`${"".padEnd(20)} ${"median".padStart(9)} ${"min".padStart(9)} ${"max".padStart(9)}`);
  console.log(row("dom content loaded", samples.dcl));
  console.log(row("interactive IDE", samples.interactive));
  console.log(row("Monaco ready", samples.monaco));
};
table(`IDE page load, first visit: ${runs} fresh contexts (after one warm-up), Debian chromium, ${base}`, first);
table(`IDE page load, returning visit: ${runs} visits in one context (after two warm-ups)`, returning);
console.log(`requests outside ${url.hostname}: ${external.size === 0 ? "none" : [...external].join(", ")}`);
if (external.size > 0) process.exit(1);
