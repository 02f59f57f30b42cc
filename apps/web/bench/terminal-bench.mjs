/* global document, performance, window, WebSocket, TextEncoder, setInterval, clearInterval */
// `npm run bench:terminal`: the IDE terminal (xterm.js on a PTY in the session's container), in Debian's
// chromium via Playwright, against a Berth of its own (scripts/serve.mjs on spare ports, a fresh data dir;
// build first: `npm run build`).
//
//   keystroke → echo   a printable key pressed at the shell prompt, from the page's keydown to the
//                      WebSocket frame carrying the echoed byte back (inside the page; Playwright's own
//                      round trips are not counted), p50 and p95 per round.
//   baseline           the same key, in the same browser, sent on keydown over a bare WebSocket to an
//                      echo server in this process, to the echo frame: what the browser, the loopback and
//                      Node cost without Berth in between.
//   Rounds alternate (terminal, baseline, terminal, …); each figure is the median over rounds.
//   50 MB              through one terminal to the page (xterm parsing it), with the runner's RSS before
//                      and at its peak (sampled every 100 ms from /proc).
//   unread terminal    `yes` in a terminal whose page is closed: the runner's RSS and the transcript's
//                      size over 5 s (the agent stops reading the PTY once 1 MiB is unread).
//
//   BENCH_ROUNDS   rounds per figure (default 6)     BENCH_KEYS   keys per round (default 25)
//   BENCH_MB       megabytes through one terminal (default 50)
import { spawn } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { chromium } from "@playwright/test";
import { WebSocketServer } from "ws";
import { CHROMIUM_PATH, chromiumArgs } from "../../../scripts/lib/chromium.mjs";
import { loadavg, printFigures, step, waitFor as pollUntil } from "./bench-kit.mjs";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");
const env = process.env;
const ROUNDS = Math.max(2, Number(env.BENCH_ROUNDS || 6));
const KEYS = Math.max(5, Number(env.BENCH_KEYS || 25));
const MEGABYTES = Math.max(1, Number(env.BENCH_MB || 50));
const RUNNER_PORT = 4293;
const WEB_PORT = 3293;
const TOKEN = "terminal-bench-admin-token-0123456789";
const web = `http://127.0.0.1:${WEB_PORT}`;

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};
const percentile = (values, p) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
};
const mb = (bytes) => (bytes / 1024 / 1024).toFixed(1);
const ms = (value) => value.toFixed(2);

function rssOf(pid) {
  const status = fs.readFileSync(`/proc/${pid}/status`, "utf8");
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? 0) * 1024;
}

/** The runner serve.mjs started: its child running apps/runner/dist/main.mjs. */
function runnerPid(servePid) {
  for (const name of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${name}/stat`, "utf8");
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      const cmdline = fs.readFileSync(`/proc/${name}/cmdline`, "utf8");
      if (ppid === servePid && cmdline.includes("apps/runner/dist/main.mjs")) return Number(name);
    } catch {
      // gone
    }
  }
  throw new Error("the runner process was not found");
}

// Polls twice as often as the kit's default: the terminal answers in milliseconds.
const waitFor = (check, what, timeoutMs = 60_000) => pollUntil(check, what, timeoutMs, 100);

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "berth-terminal-bench-"));
const serve = spawn(process.execPath, [path.join(root, "scripts/serve.mjs")], {
  cwd: root,
  env: {
    ...env,
    BERTH_DATA_DIR: dataDir,
    BERTH_RUNNER_PORT: String(RUNNER_PORT),
    BERTH_WEB_PORT: String(WEB_PORT),
    BERTH_ADMIN_TOKEN: TOKEN,
    BERTH_WARM_POOL: "1",
    BERTH_RUNNER_ID: "terminal-bench",
    BERTH_LOG_LEVEL: "warn",
  },
  stdio: ["ignore", "ignore", "inherit"],
});
// The baseline: a blank page and a WebSocket echo on one origin of this process.
const echoServer = http.createServer((_request, response) => {
  response.setHeader("content-type", "text/html");
  response.end("<!doctype html><title>echo</title><textarea id=t></textarea>");
});
const echo = new WebSocketServer({ server: echoServer });
echo.on("connection", (socket) => socket.on("message", (data, binary) => socket.send(data, { binary })));
await new Promise((resolve) => echoServer.listen(0, "127.0.0.1", resolve));
let browser;
let session;

try {
  await waitFor(async () => (await fetch(`${web}/healthz`).catch(() => null))?.ok, "the web app", 120_000);
  step("servers up");
  const runner = runnerPid(serve.pid);
  const headers = { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" };
  session = await (
    await fetch(`${web}/api/sessions`, { method: "POST", headers, body: JSON.stringify({ name: "bench-terminal" }) })
  ).json();

  browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: chromiumArgs() });
  const context = await browser.newContext({ baseURL: web, viewport: { width: 1440, height: 1000 } });
  const signIn = await context.request.post("/api/session", { data: { token: TOKEN } });
  if (!signIn.ok()) throw new Error(`sign-in answered ${signIn.status()}`);

  // Stamps keydowns and WebSocket frames inside the page, before any app code runs.
  const stamps = () => {
    window.__bench = { keydownAt: 0, echoAt: 0, want: "" };
    document.addEventListener("keydown", () => (window.__bench.keydownAt = performance.now()), true);
    const NativeWebSocket = window.WebSocket;
    window.WebSocket = class extends NativeWebSocket {
      constructor(...args) {
        super(...args);
        this.addEventListener("message", (event) => {
          const b = window.__bench;
          if (b.echoAt || !b.keydownAt || !b.want) return;
          // socket.io sends terminal:output as a text header, then the bytes as a binary frame.
          if (typeof event.data !== "string" && event.data.byteLength <= 64) {
            const bytes = new Uint8Array(event.data);
            if (bytes.includes(b.want.charCodeAt(0))) b.echoAt = performance.now();
          }
        });
      }
    };
  };
  await context.addInitScript(stamps);
  step("signed in");
  const page = await context.newPage();
  await page.goto(`/sessions/${session.id}`);
  await page.getByTestId("tab-terminal").click();
  const screen = () => page.locator(".terminal-view:not([hidden]) .xterm-rows").innerText();
  await waitFor(async () => /\$ /.test(await screen()), "the shell prompt");
  await page.locator(".terminal-view:not([hidden]) .xterm-screen").click();
  step("terminal prompt shown");

  // Baseline page: a bare WebSocket to the echo server, sent on keydown.
  const basePage = await context.newPage();
  await basePage.goto(`http://127.0.0.1:${echoServer.address().port}/`);
  await basePage.evaluate(() => {
    window.__bench = { keydownAt: 0, echoAt: 0, want: "" };
    const ws = new WebSocket(`ws://${window.location.host}`);
    ws.binaryType = "arraybuffer";
    ws.onmessage = (event) => {
      const b = window.__bench;
      if (!b.echoAt && new Uint8Array(event.data).includes(b.want.charCodeAt(0))) b.echoAt = performance.now();
    };
    document.getElementById("t").addEventListener("keydown", (event) => {
      window.__bench.keydownAt = performance.now();
      ws.send(new TextEncoder().encode(event.key));
    });
    return new Promise((resolve) => (ws.onopen = () => resolve(true)));
  });
  await basePage.focus("#t");

  const letters = "abcdefghijklmnopqrstuvwxyz";
  async function round(target) {
    // The page measured must be the one in front: Chrome defers a background tab's tasks, which put ~40 ms on
    // every terminal echo while the baseline page (opened last) was the foreground tab.
    await target.bringToFront();
    const samples = [];
    for (let i = 0; i < KEYS; i++) {
      const key = letters[i % letters.length];
      await target.evaluate((k) => Object.assign(window.__bench, { keydownAt: 0, echoAt: 0, want: k }), key);
      await target.keyboard.press(key);
      const result = await target.waitForFunction(
        () => window.__bench.echoAt && window.__bench.echoAt - window.__bench.keydownAt,
        null,
        { timeout: 10_000 },
      );
      samples.push(await result.jsonValue());
    }
    if (target === page) await page.keyboard.press("Control+u");
    return { p50: percentile(samples, 50), p95: percentile(samples, 95) };
  }

  step("baseline page ready; measuring keystrokes");
  // A warm-up round each, not counted.
  await round(page);
  await round(basePage);
  const terminalRounds = [];
  const baseRounds = [];
  for (let r = 0; r < ROUNDS; r++) {
    terminalRounds.push(await round(page));
    baseRounds.push(await round(basePage));
  }
  const t50 = median(terminalRounds.map((r) => r.p50));
  const t95 = median(terminalRounds.map((r) => r.p95));
  const b50 = median(baseRounds.map((r) => r.p50));
  const b95 = median(baseRounds.map((r) => r.p95));
  console.log(
    `load average: ${loadavg()}   (${ROUNDS} alternated rounds of ${KEYS} keys, medians of per-round figures)`,
  );
  console.log(
    `keystroke → echo, terminal         p50 ${ms(t50)} ms   p95 ${ms(t95)} ms   (target p50 ≤ 15 ms: ${t50 <= 15 ? "met" : "missed"})`,
  );
  console.log(`keystroke → echo, bare WebSocket   p50 ${ms(b50)} ms   p95 ${ms(b95)} ms   (baseline)`);
  console.log(`ratio terminal / baseline          p50 ${(t50 / b50).toFixed(2)}×   p95 ${(t95 / b95).toFixed(2)}×`);
  printFigures([
    { figure: "terminal keystroke → echo p50", value: t50, unit: "ms", baseline: "bare WebSocket echo", baselineValue: b50, target: "≤ 15 ms", ok: t50 <= 15 },
  ]);
  await basePage.close();

  // 50 MB through one terminal, the page taking every byte (xterm parses it; acks pace the runner).
  await page.evaluate(() => (window.__bench.want = ""));
  const rssBefore = rssOf(runner);
  let rssPeak = rssBefore;
  const sampler = setInterval(() => (rssPeak = Math.max(rssPeak, rssOf(runner))), 100);
  const bytes = MEGABYTES * 1000 * 1000;
  const startedAt = performance.now();
  await page.keyboard.type(
    `clear; head -c ${bytes} /dev/zero | tr '\\0' 'x' | fold -w 100; echo; echo bench-done-$((40+2))\n`,
  );
  await waitFor(
    async () => /^bench-done-42\s*$/m.test(await screen()),
    `${MEGABYTES} MB through the terminal`,
    600_000,
  );
  const seconds = (performance.now() - startedAt) / 1000;
  clearInterval(sampler);
  console.log(`load average: ${loadavg()}`);
  console.log(
    `${MEGABYTES} MB through one terminal: ${seconds.toFixed(1)} s (${(bytes / 1e6 / seconds).toFixed(1)} MB/s); runner RSS ${mb(rssBefore)} MB before, ${mb(rssPeak)} MB at peak: growth ${mb(rssPeak - rssBefore)} MB (target < 50 MB: ${rssPeak - rssBefore < 50 * 1024 * 1024 ? "met" : "missed"})`,
  );

  printFigures([
    { figure: `${MEGABYTES} MB through one terminal`, value: bytes / 1e6 / seconds, unit: "MB/s" },
    { figure: "runner RSS growth, 50 MB through a terminal", value: (rssPeak - rssBefore) / 1048576, unit: "MB", target: "< 50 MB", ok: rssPeak - rssBefore < 50 * 1024 * 1024 },
  ]);

  // A terminal nobody reads: `yes` runs on, its page closed.
  await page.keyboard.type("clear; yes unread-terminal\n");
  await page.waitForTimeout(1000);
  const runs = await (await fetch(`${web}/api/runs?sessionId=${session.id}`, { headers })).json();
  const terminalRun = runs.runs.find((r) => r.kind === "terminal" && r.status === "running");
  const logFile = path.join(dataDir, "runs", terminalRun.id, "stdout.log");
  await page.close();
  await new Promise((r) => setTimeout(r, 1500));
  const unreadRss = rssOf(runner);
  const unreadLog = fs.statSync(logFile).size;
  await new Promise((r) => setTimeout(r, 5000));
  console.log(
    `unread terminal (yes, page closed) over 5 s: runner RSS ${mb(unreadRss)} → ${mb(rssOf(runner))} MB, transcript ${mb(unreadLog)} → ${mb(fs.statSync(logFile).size)} MB (it stops growing: the program waits)`,
  );
} finally {
  await browser?.close().catch(() => undefined);
  if (session?.id)
    await fetch(`${web}/api/sessions/${session.id}`, {
      method: "DELETE",
      headers: { authorization: `Bearer ${TOKEN}` },
    }).catch(() => undefined);
  echo.close();
  echoServer.close();
  // The runner drains its warm pool and unmounts workspaces as it stops: wait for it before removing its data.
  const exited = new Promise((resolve) => serve.once("exit", resolve));
  serve.kill("SIGTERM");
  await Promise.race([exited, new Promise((r) => setTimeout(r, 20_000))]);
  try {
    fs.rmSync(dataDir, { recursive: true, force: true });
  } catch (error) {
    process.stderr.write(
      `bench:terminal: left ${dataDir} (${error.code}); the next run reaps this runner's containers\n`,
    );
  }
}
