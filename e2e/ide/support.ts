import fs from "node:fs";
import { expect, type APIRequestContext, type BrowserContext, type Page } from "@playwright/test";
import { E2E_ADMIN_TOKEN, E2E_PORTS } from "../../playwright.config";

export const ADMIN_TOKEN = E2E_ADMIN_TOKEN;
export { E2E_PORTS };
export const SCREENS = "test-results/e2e/screens";

const LOCAL_HOSTS = new Set(["127.0.0.1", "localhost", "[::1]"]);

/** Records every request that leaves localhost; `assertNone` fails the test if there was one. */
export function watchExternalRequests(page: Page) {
  const external: string[] = [];
  page.on("request", (request) => {
    const url = new URL(request.url());
    if (url.protocol === "data:" || url.protocol === "blob:") return;
    if (!LOCAL_HOSTS.has(url.hostname)) external.push(request.url());
  });
  return { external, assertNone: () => expect(external, `requests outside localhost: ${external.join(", ")}`).toEqual([]) };
}

export async function screenshot(page: Page, name: string) {
  fs.mkdirSync(SCREENS, { recursive: true });
  await page.screenshot({ path: `${SCREENS}/${name}.png`, fullPage: false });
}

/** Signs in through the login page, as a person would. */
export async function signInWithUi(page: Page, token = ADMIN_TOKEN, next = "/") {
  await page.goto(`/login?next=${encodeURIComponent(next)}`);
  await page.getByTestId("login-token").fill(token);
  await page.getByTestId("login-submit").click();
  await page.waitForURL((url) => url.pathname === next);
}

/** Signs a browser context in without the UI (sets the same httpOnly cookie). */
export async function signInContext(context: BrowserContext, token = ADMIN_TOKEN) {
  const response = await context.request.post("/api/session", { data: { token } });
  expect(response.ok()).toBe(true);
}

const auth = { authorization: `Bearer ${ADMIN_TOKEN}` };

/** Sessions a test made; `api.cleanup` deletes them (container and volume) in afterEach. */
const createdSessions = new Set<string>();

/** REST calls with the admin token, through the web origin (the proxy). */
export const api = {
  async createSession(request: APIRequestContext, body: { name?: string; autonomy?: string; network?: string } = {}): Promise<{ id: string }> {
    const response = await request.post("/api/sessions", { headers: auth, data: body });
    expect(response.status(), await response.text()).toBe(201);
    const session = (await response.json()) as { id: string };
    createdSessions.add(session.id);
    return session;
  },
  /** Marks a session made through the UI for cleanup. */
  track(sessionId: string) {
    createdSessions.add(sessionId);
  },
  async cleanup(request: APIRequestContext) {
    for (const id of [...createdSessions]) {
      createdSessions.delete(id);
      await request.delete(`/api/sessions/${id}`, { headers: auth }).catch(() => undefined);
    }
  },
  async tool(request: APIRequestContext, sessionId: string, tool: string, args: unknown, opts: { wait?: number; timeout?: number } = {}) {
    const query = opts.wait ? `?wait=${opts.wait}` : "";
    const response = await request.post(`/api/sessions/${sessionId}/tools/${tool}${query}`, { headers: auth, data: { args }, timeout: opts.timeout ?? 120_000 });
    return { status: response.status(), body: (await response.json()) as Record<string, unknown> & { ok?: boolean; output?: string; runId?: string; receiptId?: string; details?: Record<string, unknown> } };
  },
  async run(request: APIRequestContext, runId: string) {
    const response = await request.get(`/api/runs/${runId}`, { headers: auth });
    expect(response.ok()).toBe(true);
    return (await response.json()) as { run: { id: string; status: string; outcome: string | null; receiptId: string | null } };
  },
  async deleteSession(request: APIRequestContext, id: string) {
    await request.delete(`/api/sessions/${id}`, { headers: auth }).catch(() => undefined);
  },
};

/** Waits for a run to end and returns its record (with its receipt id). */
export async function waitForRunEnd(request: APIRequestContext, runId: string) {
  let record = await api.run(request, runId);
  for (let i = 0; i < 120 && record.run.status === "running"; i++) {
    await new Promise((resolve) => setTimeout(resolve, 500));
    record = await api.run(request, runId);
  }
  return record;
}

/** The text xterm shows (its DOM renderer draws the visible rows). */
/** The visible terminal tab's screen (xterm's rows; the scrollback above is not included). */
export function activeTerminal(page: Page) {
  return page.getByTestId("terminal").locator(".terminal-view:not([hidden])");
}

export async function terminalText(page: Page): Promise<string> {
  return (await activeTerminal(page).locator(".xterm-rows").innerText()).replace(/\u00a0/g, " ");
}

export async function typeInTerminal(page: Page, line: string) {
  await page.getByTestId("terminal").click();
  await page.keyboard.type(line, { delay: 5 });
  await page.keyboard.press("Enter");
}
