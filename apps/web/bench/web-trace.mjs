/* global performance, document, window, MutationObserver */
// Where one first visit to the IDE page spends its time, from a Chromium trace: what web-bench.mjs's "Monaco ready"
// is made of. Against a running Berth, as web-bench.mjs (`BERTH_WEB_URL`, `BERTH_TOKEN`):
//
//   node apps/web/bench/web-trace.mjs [trace.json]
//
// One warm-up visit (the server's first render), then one first visit in a fresh context, traced. It prints, with
// times from the document's request (as the network stack sent it):
//   requests      each resource: requested, sent (a connection had it), first byte, done, size, new connection
//   main thread   the page's tasks of 3 ms or more, wall and CPU time, and what took longest in each
//   parse         Monaco's chunks parsed off the main thread: from, to, CPU
//   CPU           each process's threads until Monaco's evaluation began
// Wall time far above CPU time means the thread waited: for the cores (the load average is printed), or for the
// browser process (the font look-ups of a first layout). The trace is kept when a path is given, for
// chrome://tracing or Perfetto. It waits in the page as web-bench.mjs does (no Playwright locator runs in the
// page before the editor is adopted: its injected script is 330 KB of compile on the page's main thread).
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { chromium } from "@playwright/test";
import { CHROMIUM_PATH, chromiumArgs } from "../../../scripts/lib/chromium.mjs";

const env = process.env;
const base = (env.BERTH_WEB_URL || `http://127.0.0.1:${env.BERTH_WEB_PORT || 3000}`).replace(/\/$/, "");
const token = env.BERTH_TOKEN || env.BERTH_ADMIN_TOKEN || readToken();
const keep = process.argv[2];

function readToken() {
  const file = path.resolve(env.BERTH_DATA_DIR || ".berth", "admin-token");
  if (fs.existsSync(file)) return fs.readFileSync(file, "utf8").trim();
  process.stderr.write("web-trace: no token: set BERTH_TOKEN (or BERTH_ADMIN_TOKEN)\n");
  process.exit(1);
}

const headers = { authorization: `Bearer ${token}`, "content-type": "application/json" };
async function api(method, route, body) {
  const response = await fetch(`${base}${route}`, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (!response.ok) throw new Error(`${method} ${route} → ${response.status} ${(await response.text()).slice(0, 200)}`);
  return response.status === 204 ? null : response.json();
}

const session = await api("POST", "/api/sessions", { name: `web-trace-${Date.now()}`, autonomy: "trusted" });
await api("POST", `/api/sessions/${session.id}/tools/write_file`, { args: { path: "main.py", content: "print(1)\n" } });
const browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: chromiumArgs() });
const traceFile = keep ?? path.join(fs.mkdtempSync(path.join(os.tmpdir(), "web-trace-")), "trace.json");
const loadBefore = os.loadavg()[0];

/** One first visit; traced when `trace`. Returns the page's own timings. */
async function visit(trace) {
  const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
  await context.request.post(`${base}/api/session`, { data: { token }, headers: { origin: base } });
  const page = await context.newPage();
  await page.addInitScript(() => {
    window.__trace = {};
    new MutationObserver(() => {
      if (document.querySelector("[data-monaco-ready]")) window.__trace.monaco ??= performance.now();
    }).observe(document, { subtree: true, childList: true, attributes: true });
  });
  if (trace)
    await browser.startTracing(page, {
      path: traceFile,
      categories: [
        "devtools.timeline",
        "disabled-by-default-devtools.timeline",
        "v8.execute",
        "v8",
        "blink",
        "loading",
        "toplevel",
        "mojom",
      ],
    });
  await page.goto(`${base}/sessions/${session.id}`, { waitUntil: "commit" });
  await page.evaluate(
    () =>
      new Promise((resolve) => {
        const check = () => (document.querySelector("[data-editor-adopted]") ? resolve() : setTimeout(check, 50));
        check();
      }),
  );
  if (trace) await browser.stopTracing();
  const timings = await page.evaluate(() => ({
    monaco: window.__trace.monaco,
    nav: performance.getEntriesByType("navigation")[0].toJSON(),
  }));
  await context.close();
  return timings;
}

let page;
try {
  await visit(false);
  page = await visit(true);
} finally {
  await browser.close();
  await api("DELETE", `/api/sessions/${session.id}`).catch(() => undefined);
}

const events = JSON.parse(fs.readFileSync(traceFile, "utf8")).traceEvents;
const threadNames = new Map(
  events.filter((e) => e.name === "thread_name").map((e) => [`${e.pid}:${e.tid}`, e.args.name]),
);
const processNames = new Map(events.filter((e) => e.name === "process_name").map((e) => [e.pid, e.args.name]));
const documentRequest = events.find(
  (e) => e.name === "ResourceSendRequest" && e.args?.data?.url?.includes(`/sessions/${session.id}`),
);
if (!documentRequest) throw new Error("the trace has no request of the IDE page");
const { pid, tid } = documentRequest;
const documentTiming = events.find(
  (e) => e.name === "ResourceReceiveResponse" && e.args?.data?.requestId === documentRequest.args.data.requestId,
)?.args.data.timing;
// The document's request as the network stack started it: the renderer records it only once the answer has come.
const t0 = documentTiming ? documentTiming.requestTime * 1e6 : documentRequest.ts;
const ms = (us) => (us / 1000).toFixed(1).padStart(7);
const at = (e) => ms(e.ts - t0);
const name = (url) =>
  url
    .replace(base, "")
    .replace(/^\/_next\/static\//, "")
    .slice(0, 60);

console.log(
  `first visit, times from the document's request (load average ${loadBefore.toFixed(1)} → ${os.loadavg()[0].toFixed(1)} on ${os.cpus().length} CPUs)`,
);
console.log(
  `  page: first byte ${page.nav.responseStart.toFixed(0)} ms, DOM content loaded ${page.nav.domContentLoadedEventEnd.toFixed(0)} ms, Monaco ready ${page.monaco?.toFixed(0)} ms (from navigation start)`,
);

console.log("requests (requested, sent, first byte, done; ms)");
const byId = (eventName) => new Map(events.filter((e) => e.name === eventName).map((e) => [e.args.data.requestId, e]));
const [responses, finishes, sends] = [
  byId("ResourceReceiveResponse"),
  byId("ResourceFinish"),
  byId("ResourceSendRequest"),
];
for (const request of [...sends.values()]
  .filter((e) => e.pid === pid && e.ts >= documentRequest.ts)
  .sort((a, b) => a.ts - b.ts)) {
  const response = responses.get(request.args.data.requestId);
  const finish = finishes.get(request.args.data.requestId);
  const timing = response?.args.data.timing;
  const sent = timing ? ms(timing.requestTime * 1e6 + timing.sendStart * 1000 - t0) : "      -";
  const firstByte = timing ? ms(timing.requestTime * 1e6 + timing.receiveHeadersEnd * 1000 - t0) : "      -";
  const size = finish?.args.data.encodedDataLength ?? 0;
  const fresh = timing && timing.connectStart >= 0 ? "new" : "   ";
  // The document's row starts at its request too: the renderer records that only once the answer has come.
  const requested = request === documentRequest ? sent : at(request);
  console.log(
    `${requested} ${sent} ${firstByte} ${finish ? ms(finish.args.data.finishTime * 1e6 - t0) : "      -"} ${String(size).padStart(8)} ${fresh} ${name(request.args.data.url)}`,
  );
}

const main = events.filter((e) => e.pid === pid && e.tid === tid && e.ph === "X");
const evaluation = main.find((e) => e.name === "v8.evaluateModule" && e.dur > 20_000 && e.ts > t0);
console.log("main thread: tasks of 3 ms or more until Monaco's evaluation has run (wall, CPU; what took longest)");
for (const task of main.filter(
  (e) =>
    e.name === "ThreadControllerImpl::RunTask" &&
    e.ts >= t0 &&
    e.dur >= 3000 &&
    (!evaluation || e.ts <= evaluation.ts + evaluation.dur),
)) {
  const inside = main.filter(
    (e) =>
      e.ts >= task.ts &&
      e.ts + e.dur <= task.ts + task.dur &&
      !/RunTask|Receive mojo|SimpleWatcher|AsyncTask|DeferredPump|PumpTokenizer/.test(e.name),
  );
  const longest = inside
    .sort((a, b) => b.dur - a.dur)
    .slice(0, 3)
    .map((e) => `${e.name}${e.args?.data?.url ? ` (${name(e.args.data.url)})` : ""} ${(e.dur / 1000).toFixed(1)}`);
  console.log(`${at(task)} ${ms(task.dur)} ${ms(task.tdur ?? 0)}  ${longest.join(" | ")}`);
}

console.log("parse off the main thread (from, to, CPU; ms)");
for (const parse of events
  .filter((e) => e.pid === pid && e.name === "v8.parseOnBackground" && e.ts >= t0 && e.tdur >= 1000)
  .sort((a, b) => a.ts - b.ts))
  console.log(`${at(parse)} ${ms(parse.ts + parse.dur - t0)} ${ms(parse.tdur)}  ${name(parse.args.data.url)}`);

const until = evaluation?.ts ?? Infinity;
console.log(
  `CPU of the tasks done before Monaco's evaluation began (${evaluation ? `${at(evaluation).trim()} ms` : "not in the trace"}; its own CPU ${evaluation ? ms(evaluation.tdur).trim() : "-"} ms)`,
);
const busy = new Map();
for (const e of events)
  if (
    (e.name === "ThreadControllerImpl::RunTask" || e.name === "ThreadPool_RunTask") &&
    e.ph === "X" &&
    e.ts >= t0 &&
    e.ts + e.dur <= until
  ) {
    const key = `${processNames.get(e.pid) ?? e.pid} ${threadNames.get(`${e.pid}:${e.tid}`) ?? e.tid}`;
    busy.set(key, (busy.get(key) ?? 0) + (e.tdur ?? 0));
  }
for (const [thread, cpu] of [...busy].sort((a, b) => b[1] - a[1]).slice(0, 8)) console.log(`${ms(cpu)}  ${thread}`);
if (!keep) fs.rmSync(path.dirname(traceFile), { recursive: true, force: true });
else console.log(`trace: ${keep}`);
