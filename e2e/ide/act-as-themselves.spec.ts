import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { expect, test, type APIRequestContext, type Page } from "@playwright/test";
import { ADMIN_TOKEN, api, screenshot, signInWithUi, watchExternalRequests } from "./support";

test.afterEach(async ({ request }) => api.cleanup(request));

test.use({ viewport: { width: 1440, height: 1000 } });

// Colours, a progress line redrawn with \r, and stderr between two stdout lines (a pause between writes:
// two pipes have no order of their own within a few microseconds).
const PROGRESS = [
  "import sys, time",
  'print("\\033[32mgreen start\\033[0m", flush=True)',
  'for i in range(1, 4): print(f"\\rprogress {i}/3", end="", flush=True); time.sleep(0.4)',
  "print(flush=True)",
  'time.sleep(0.3); print("to stderr", file=sys.stderr, flush=True)',
  'time.sleep(0.3); print("all done", flush=True)',
  "",
].join("\n");
const FOREVER = ["import time", 'print("tick", flush=True)', "time.sleep(300)", ""].join("\n");

/** Signs in, creates a session with the form's defaults (as a new user would), and opens its IDE. */
async function newDefaultSession(page: Page): Promise<string> {
  await signInWithUi(page);
  await page.getByTestId("session-name").fill(`people-${Date.now()}`);
  await expect(page.getByTestId("session-autonomy")).toHaveValue("default");
  await expect(page.getByTestId("session-autonomy-help")).toContainText("you act at once");
  await page.getByTestId("create-session").click();
  await page.waitForURL(/\/sessions\/[^/]+$/);
  const sessionId = page.url().split("/").pop() ?? "";
  api.track(sessionId);
  await expect(page.getByTestId("session-status")).toBeVisible();
  return sessionId;
}

async function openFile(page: Page, request: APIRequestContext, sessionId: string, path: string, content: string) {
  expect((await api.tool(request, sessionId, "write_file", { path, content })).body.ok).toBe(true);
  const file = page.locator(`[data-testid="tree-file"][data-path="${path}"]`);
  await expect(file).toBeVisible();
  await file.click();
  await expect(page.locator(`[data-testid="editor-tab"][data-path="${path}"]`)).toBeVisible();
  await expect(page.locator("[data-monaco-ready]")).toHaveCount(1);
  // Loaded (not just opening): ▶ Run saves the tab first, and a tab still loading has nothing to save.
  await expect(page.getByTestId("editor").locator(".view-lines")).toContainText(content.split("\n")[0]!);
}

async function mcpAgent(page: Page, sessionId: string): Promise<Client> {
  const base = new URL(page.url()).origin;
  const client = new Client({ name: "e2e-agent", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp/${sessionId}`), { requestInit: { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } } }));
  return client;
}

test("the person at the keyboard: ▶ Run at the defaults streams at once, Stop aborts, an agent still parks and is approved inline, autonomy changes from the IDE", async ({ page, request }) => {
  const requests = watchExternalRequests(page);
  const sessionId = await newDefaultSession(page);
  await expect(page.getByTestId("session-autonomy-select")).toHaveValue("default");

  // ▶ Run with no operator: no banner, output streams with its colours and its \r redraws.
  await openFile(page, request, sessionId, "progress.py", PROGRESS);
  await page.getByTestId("run").click();
  const output = page.getByTestId("run-output");
  await expect(output).toContainText("green start");
  await expect(page.getByTestId("parked-banner")).toHaveCount(0);
  await expect(output).toContainText("all done", { timeout: 30_000 });
  await expect(page.getByTestId("run-outcome")).toHaveAttribute("data-value", "succeeded");
  const text = await output.innerText();
  expect(text).toContain("progress 3/3");
  expect(text).not.toContain("progress 1/3");
  expect(text.indexOf("progress 3/3")).toBeLessThan(text.indexOf("to stderr"));
  expect(text.indexOf("to stderr")).toBeLessThan(text.indexOf("all done"));
  await expect(output.getByText("green start")).toHaveCSS("color", "rgb(13, 188, 121)");
  await screenshot(page, "people-run-at-defaults");
  const runId = (await page.getByTestId("run-link").getAttribute("href"))!.split("/").pop()!;
  const detail = await request.get(`/api/runs/${runId}`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
  const recorded = (await detail.json()) as { run: { caller: string }; toolCalls: { caller: string }[] };
  expect(recorded.run.caller).toBe("browser");
  expect(recorded.toolCalls.map((c) => c.caller)).toEqual(["browser"]);

  // Stop ends a long run at once, as aborted.
  await openFile(page, request, sessionId, "forever.py", FOREVER);
  await page.getByTestId("run").click();
  await expect(output).toContainText("tick");
  await expect(page.getByTestId("stop")).toBeVisible();
  await screenshot(page, "people-run-stop-button");
  await page.getByTestId("stop").click();
  await expect(page.getByTestId("run-outcome")).toHaveAttribute("data-value", "aborted", { timeout: 20_000 });
  await expect(page.getByTestId("run")).toBeVisible();
  await screenshot(page, "people-run-aborted");

  // An MCP agent in the same session is still governed: its run_script parks at default, shown inline to
  // the operator (the admin here), approved there, and the agent's call finishes.
  const agent = await mcpAgent(page, sessionId);
  const call = agent.callTool({ name: "run_script", arguments: { interpreter: "python3", script: "progress.py" } }, undefined, { timeout: 120_000 });
  const banner = page.getByTestId("parked-banner").filter({ hasText: "progress.py" });
  await expect(banner).toBeVisible({ timeout: 20_000 });
  await expect(banner).toContainText("run_script is waiting for approval");
  await screenshot(page, "people-agent-parked-inline");
  await banner.getByTestId("approve-inline").click();
  await expect(page.getByTestId("parked-banner")).toHaveCount(0);
  const answer = (await call) as { isError?: boolean; content: { type: string; text?: string }[] };
  expect(answer.isError ?? false).toBe(false);
  expect(JSON.stringify(answer.content)).toContain("all done");
  await screenshot(page, "people-agent-approved");

  // Autonomy changed from the IDE, recorded and kept: at trusted the agent's call runs without asking.
  await page.getByTestId("session-autonomy-select").selectOption("trusted");
  await expect(page.getByTestId("notice")).toContainText("Autonomy is now trusted");
  await page.reload();
  await expect(page.getByTestId("session-autonomy-select")).toHaveValue("trusted");
  const session = (await (await request.get(`/api/sessions/${sessionId}`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } })).json()) as { autonomy: string; autonomyChangedBy: string };
  expect(session).toMatchObject({ autonomy: "trusted", autonomyChangedBy: "admin" });
  const trusted = (await agent.callTool({ name: "run_script", arguments: { interpreter: "python3", script: "progress.py", args: ["again"] } }, undefined, { timeout: 60_000 })) as { isError?: boolean };
  expect(trusted.isError ?? false).toBe(false);
  await expect(page.getByTestId("parked-banner")).toHaveCount(0);
  await screenshot(page, "people-autonomy-trusted");
  await agent.close();

  // The run's page and its receipt say who ran it.
  await page.goto(`/runs/${runId}`);
  await expect(page.getByTestId("run-detail-caller")).toHaveText("a person, in the browser");
  await expect(page.getByTestId("receipt-caller")).toContainText("a person, in the browser");
  await expect(page.getByTestId("receipt-verification")).toHaveAttribute("data-valid", "true");
  await screenshot(page, "people-run-receipt-caller");
  requests.assertNone();
});
