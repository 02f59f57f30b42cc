import http from "node:http";
import type { AddressInfo } from "node:net";
import { expect, test, type Page } from "@playwright/test";
import { io as connect } from "socket.io-client";
import { ADMIN_TOKEN, E2E_PORTS, api, screenshot, signInWithUi } from "../ide/support";

// A page on another port of 127.0.0.1, opened in the browser where the user is signed in: the same
// site for cookies (ports do not count), a different origin. Everything it tries must get nothing.

const WEB = `http://127.0.0.1:${E2E_PORTS.web}`;
const RUNNER = `http://127.0.0.1:${E2E_PORTS.runner}`;
const auth = { authorization: `Bearer ${ADMIN_TOKEN}` };

let hostile: http.Server;
let hostileOrigin = "";

/** The attacker's page: fetch GET/POST with the cookie, a form POST, socket.io over raw WebSockets to both ports, a frame of the IDE. */
function hostilePage(sessionId: string): string {
  return `<!doctype html><meta charset="utf-8"><title>hostile</title>
<form id="f" method="POST" action="${WEB}/api/sessions" target="sink"><input name="name" value="csrf-form"></form>
<iframe name="sink" id="sink"></iframe>
<iframe id="ide" src="${WEB}/sessions/${sessionId}" width="600" height="300"></iframe>
<script>
const results = {};
window.results = results;
const attempt = async (name, fn) => { try { results[name] = await fn(); } catch (e) { results[name] = "error: " + e.message; } };
/** socket.io by hand (engine.io v4 frames): connect to "/" with the cookie, then ask for a write_file. */
const socketTry = (base) => new Promise((resolve) => {
  const log = [];
  const ws = new WebSocket(base.replace("http", "ws") + "/socket.io/?EIO=4&transport=websocket");
  ws.onopen = () => log.push("open");
  ws.onmessage = (m) => {
    log.push(String(m.data).slice(0, 80));
    if (String(m.data).startsWith("0")) ws.send("40");
    if (String(m.data).startsWith("40")) ws.send('421["tool:call",{"sessionId":"${sessionId}","tool":"write_file","args":{"path":"pwned.txt","content":"hostile"}}]');
  };
  ws.onclose = () => resolve(log);
  setTimeout(() => { ws.close(); resolve(log); }, 4000);
});
(async () => {
  await attempt("fetchGet", async () => (await fetch("${WEB}/api/sessions", { credentials: "include" })).status);
  await attempt("fetchGetNoCors", async () => (await fetch("${WEB}/api/sessions", { credentials: "include", mode: "no-cors" })).type);
  await attempt("fetchPost", async () => (await fetch("${WEB}/api/sessions", { method: "POST", credentials: "include", mode: "no-cors" })).type);
  await attempt("fetchTool", async () => (await fetch("${WEB}/api/sessions/${sessionId}/tools/write_file", { method: "POST", credentials: "include", mode: "no-cors", headers: { "content-type": "text/plain" }, body: JSON.stringify({ args: { path: "pwned.txt", content: "hostile" } }) })).type);
  await attempt("runnerPost", async () => (await fetch("${RUNNER}/api/sessions", { method: "POST", credentials: "include", mode: "no-cors" })).type);
  document.getElementById("f").submit();
  results.socketWeb = await socketTry("${WEB}");
  results.socketRunner = await socketTry("${RUNNER}");
  window.done = true;
})();
</script>`;
}

test.beforeAll(async () => {
  let page = "";
  hostile = http.createServer((_req, res) => res.writeHead(200, { "content-type": "text/html" }).end(page));
  await new Promise<void>((resolve) => hostile.listen(0, "127.0.0.1", resolve));
  hostileOrigin = `http://127.0.0.1:${(hostile.address() as AddressInfo).port}`;
  (hostile as http.Server & { setPage: (html: string) => void }).setPage = (html: string) => (page = html);
});
test.afterAll(() => hostile?.close());
test.afterEach(async ({ request }) => api.cleanup(request));

async function sessionCount(request: Parameters<typeof api.cleanup>[0]): Promise<number> {
  const response = await request.get("/api/sessions", { headers: auth });
  return ((await response.json()) as { sessions: unknown[] }).sessions.length;
}

/** Every CSP violation the page reports (Monaco's workers, fonts, Next's scripts must not cause one). */
async function watchCsp(page: Page): Promise<string[]> {
  const violations: string[] = [];
  page.on("console", (message) => {
    if (/Content Security Policy/i.test(message.text())) violations.push(message.text());
  });
  await page.addInitScript(() => {
    document.addEventListener("securitypolicyviolation", (event) =>
      console.error(
        `Content Security Policy violation: ${event.violatedDirective} ${event.blockedURI} from ${event.sourceFile}:${event.lineNumber}:${event.columnNumber}`,
      ),
    );
  });
  return violations;
}

test("a hostile page on another local origin gets nothing with the signed-in user's cookie", async ({
  page,
  request,
}) => {
  await signInWithUi(page);
  const session = await api.createSession(request, { name: "victim", autonomy: "yolo" });
  const before = await sessionCount(request);
  const runsBefore = (
    (await (await request.get(`/api/runs?sessionId=${session.id}`, { headers: auth })).json()) as { runs: unknown[] }
  ).runs.length;

  (hostile as http.Server & { setPage: (html: string) => void }).setPage(hostilePage(session.id));
  await page.goto(hostileOrigin);
  await page.waitForFunction(() => (window as unknown as { done?: boolean }).done === true, undefined, {
    timeout: 30_000,
  });
  const results = (await page.evaluate(
    () => (window as unknown as { results: Record<string, unknown> }).results,
  )) as Record<string, unknown>;
  await screenshot(page, "hostile-origin");

  // Reading across origins fails (no CORS); the no-cors requests leave with the cookie and are refused.
  expect(String(results.fetchGet)).toMatch(/^error/);
  // No socket connected to "/" on either port: the WebSocket upgrade itself is refused.
  for (const key of ["socketWeb", "socketRunner"]) {
    const log = results[key] as string[];
    expect(log, key).not.toContain("open");
    expect(
      log.some((frame) => frame.startsWith("40")),
      key,
    ).toBe(false);
  }
  // The IDE in a frame: refused (X-Frame-Options / frame-ancestors), so Chrome shows its error page.
  const frame = await (await page.locator("#ide").elementHandle())?.contentFrame();
  expect(frame, "the IDE frame").toBeTruthy();
  expect(frame?.url(), "the IDE frame").toMatch(/^chrome-error:/);
  expect(await frame?.locator("[data-testid=session-status]").count(), "the IDE inside the frame").toBe(0);

  // Nothing happened: no session (fetch, form or runner-port POST), no tool run, no file written.
  await expect.poll(() => sessionCount(request)).toBe(before);
  const runsAfter = (
    (await (await request.get(`/api/runs?sessionId=${session.id}`, { headers: auth })).json()) as { runs: unknown[] }
  ).runs.length;
  expect(runsAfter).toBe(runsBefore);
  const read = await api.tool(request, session.id, "read_file", { path: "pwned.txt" });
  expect(read.body.ok).toBe(false);
});

test("socket.io through the web port: a foreign Origin is refused, the web origin accepted", async () => {
  const tryOrigin = (origin: string, transport: "websocket" | "polling") =>
    new Promise<boolean>((resolve) => {
      const socket = connect(WEB, {
        transports: [transport],
        forceNew: true,
        reconnection: false,
        auth: { token: ADMIN_TOKEN },
        extraHeaders: { origin },
      });
      socket.once("connect", () => (socket.close(), resolve(true)));
      socket.once("connect_error", () => (socket.close(), resolve(false)));
    });
  for (const transport of ["websocket", "polling"] as const) {
    expect(await tryOrigin(hostileOrigin, transport), `${transport} from ${hostileOrigin}`).toBe(false);
    expect(await tryOrigin(WEB, transport), `${transport} from ${WEB}`).toBe(true);
  }
});

test("the web app refuses a foreign Host (DNS rebinding) and a cross-site cookie POST", async ({ page }) => {
  await signInWithUi(page);
  const cookies = (await page.context().cookies()).map((c) => `${c.name}=${c.value}`).join("; ");
  const raw = (headers: Record<string, string>, method = "GET", path = "/") =>
    new Promise<{ status: number; body: string }>((resolve, reject) => {
      const request = http.request({ host: "127.0.0.1", port: E2E_PORTS.web, method, path, headers }, (response) => {
        let body = "";
        response.on("data", (chunk: Buffer) => (body += chunk.toString()));
        response.on("end", () => resolve({ status: response.statusCode ?? 0, body }));
      });
      request.on("error", reject);
      request.end();
    });
  const rebound = await raw({ host: `evil.example.com:${E2E_PORTS.web}` });
  expect(rebound.status).toBe(421);
  expect(JSON.parse(rebound.body)).toMatchObject({ error: { code: "misdirected_request" } });
  const csrf = await raw({ host: `127.0.0.1:${E2E_PORTS.web}`, cookie: cookies, origin: hostileOrigin }, "POST", "/api/sessions");
  expect(csrf.status).toBe(403);
  const bodyless = await raw(
    { host: `127.0.0.1:${E2E_PORTS.web}`, cookie: cookies, "sec-fetch-site": "same-site" },
    "POST",
    "/api/sessions",
  );
  expect(bodyless.status).toBe(403);
});

test("the IDE, login and share pages carry the CSP and framing headers, and Monaco, its workers and xterm run under them", async ({
  page,
  request,
}) => {
  const violations = await watchCsp(page);
  const login = await page.goto("/login");
  for (const response of [login]) {
    const headers = response?.headers() ?? {};
    expect(headers["content-security-policy"]).toMatch(/script-src 'self' 'nonce-[^']+'/);
    expect(headers["content-security-policy"]).toContain("frame-ancestors 'none'");
    expect(headers).toMatchObject({
      "x-frame-options": "DENY",
      "referrer-policy": "no-referrer",
      "x-content-type-options": "nosniff",
    });
  }
  await signInWithUi(page);
  const session = await api.createSession(request, { name: "csp", autonomy: "trusted" });
  await api.tool(request, session.id, "write_file", { path: "a.ts", content: 'const x: number = "not a number";\n' });
  const ide = await page.goto(`/sessions/${session.id}`);
  expect(ide?.headers()["content-security-policy"]).toContain("frame-ancestors 'none'");
  await page.locator('[data-testid="tree-file"][data-path="a.ts"]').click();
  await expect(page.locator("[data-monaco-ready]")).toHaveCount(1);
  await expect(page.getByTestId("editor").locator(".monaco-editor .view-lines")).toContainText("const x");
  // The TypeScript worker (a module worker from our origin) runs under worker-src: it marks the type error.
  await expect(page.getByTestId("editor").locator(".squiggly-error").first()).toBeVisible({ timeout: 30_000 });
  await page.getByTestId("tab-terminal").click();
  await expect(page.getByTestId("terminal").locator(".xterm-rows")).toBeVisible();
  await screenshot(page, "csp-ide");
  const fontsReady = await page.evaluate(async () => {
    await document.fonts.ready;
    const failed: string[] = [];
    document.fonts.forEach((font) => void (font.status === "error" && failed.push(font.family)));
    return failed;
  });
  expect(fontsReady, "fonts that failed to load").toEqual([]);
  const share = await page.goto("/share/not-a-token");
  expect(share?.headers()["x-frame-options"]).toBe("DENY");
  await screenshot(page, "csp-share");
  expect(violations, violations.join("\n")).toEqual([]);
});
