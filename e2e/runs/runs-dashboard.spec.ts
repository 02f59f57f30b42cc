import { expect, test } from "@playwright/test";
import { api, screenshot, signInContext, waitForRunEnd, watchExternalRequests } from "../ide/support";

test.afterEach(async ({ request }) => api.cleanup(request));

test("runs dashboard: every run with its status, filters by session and outcome, detail with logs, tool calls and receipt", async ({ page, context, request }) => {
  const requests = watchExternalRequests(page);
  const { id: sessionId } = await api.createSession(request, { name: `runs-${Date.now()}`, autonomy: "trusted" });
  await api.tool(request, sessionId, "write_file", { path: "ok.py", content: "import sys\nprint('to stdout')\nprint('to stderr', file=sys.stderr)\n" });
  await api.tool(request, sessionId, "write_file", { path: "bad.sh", content: "echo failing; exit 3\n" });
  const ok = await api.tool(request, sessionId, "run_script", { interpreter: "python3", script: "ok.py" });
  const bad = await api.tool(request, sessionId, "run_script", { interpreter: "bash", script: "bad.sh" });
  const okRun = ok.body.runId as string;
  const badRun = bad.body.runId as string;
  await waitForRunEnd(request, okRun);
  await waitForRunEnd(request, badRun);

  await signInContext(context);
  await page.goto(`/runs?sessionId=${sessionId}`);
  await expect(page.locator(`[data-testid="run-row"][data-run-id="${okRun}"]`)).toBeVisible();
  await expect(page.locator(`[data-testid="run-row"][data-run-id="${badRun}"]`)).toBeVisible();
  await page.getByTestId("filter-outcome").selectOption("failed");
  await expect(page.locator(`[data-testid="run-row"][data-run-id="${okRun}"]`)).toHaveCount(0);
  await expect(page.locator(`[data-testid="run-row"][data-run-id="${badRun}"]`)).toBeVisible();
  await screenshot(page, "runs-dashboard-filtered");

  await page.goto(`/runs/${okRun}`);
  await expect(page.getByTestId("run-detail-outcome")).toHaveAttribute("data-value", "succeeded");
  // One log, in the order written, stderr marked.
  await expect(page.getByTestId("log-view")).toContainText("to stdout");
  await expect(page.locator('[data-testid="log-line"][data-stream="stderr"]')).toContainText("to stderr");
  await expect(page.getByTestId("run-command")).toHaveText("python3 ok.py");
  await expect(page.getByTestId("tool-call-row").first()).toContainText("run_script");
  await expect(page.getByTestId("receipt-verification")).toHaveAttribute("data-valid", "true");
  const download = await page.getByTestId("log-download").getAttribute("href");
  const file = await page.request.get(download ?? "");
  expect(await file.text()).toContain("to stderr");
  await screenshot(page, "run-detail");
  requests.assertNone();
});
