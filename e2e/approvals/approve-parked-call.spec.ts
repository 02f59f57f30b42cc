import crypto from "node:crypto";
import { expect, test, type APIRequestContext, type BrowserContext, type Page } from "@playwright/test";
import { api, screenshot, signInContext, waitForRunEnd, watchExternalRequests } from "../ide/support";

test.afterEach(async ({ request }) => api.cleanup(request));

/**
 * Opens the approvals dashboard (signed in, live), then has a caller in a new default-autonomy session run
 * `command`, which must park (a command name that comes from a substitution, `$(echo echo) …`, always
 * asks; a substitution in an argument is classified like any command and does not). Returns the caller,
 * still waiting, and the pending card holding `marker`, once it shows
 * up without a reload.
 */
async function parkOnDashboard(page: Page, context: BrowserContext, request: APIRequestContext, marker: string, command: string) {
  await signInContext(context);
  await page.goto("/approvals");
  await expect(page.getByTestId("socket-status")).toHaveText("live");
  const { id: sessionId } = await api.createSession(request, { name: marker, autonomy: "default" });
  const waiting = api.tool(request, sessionId, "bash", { action: "exec", command }, { wait: 120_000, timeout: 150_000 });
  const card = page.getByTestId("pending-approval").filter({ hasText: marker });
  await expect(card).toBeVisible({ timeout: 20_000 });
  return { waiting, card };
}

test("operator: a parked call appears live, approving it lets the waiting caller finish, and the receipt records the decision", async ({ page, context, request }) => {
  const requests = watchExternalRequests(page);
  const marker = `approved-${Date.now()}`;
  // It shows up without a reload, with the rendered text and its sha256.
  const { waiting, card } = await parkOnDashboard(page, context, request, marker, `$(echo echo) ${marker}-$(expr 6 \\* 7)`);
  const text = await card.getByTestId("approval-text").innerText();
  const sha = (await card.getByTestId("approval-sha256").innerText()).trim();
  expect(text).toContain(marker);
  expect(sha).toMatch(/^[0-9a-f]{64}$/);
  await screenshot(page, "approvals-pending");
  const approvalId = await card.getAttribute("data-approval-id");

  await card.getByTestId("approval-note").fill("looks safe");
  await card.getByTestId("approve").click();
  await expect(page.getByTestId("pending-approval").filter({ hasText: marker })).toHaveCount(0);
  const row = page.locator(`[data-testid="history-row"][data-approval-id="${approvalId}"]`);
  await expect(row.getByTestId("history-status")).toHaveAttribute("data-value", /approved|consumed/);
  await expect(row.getByTestId("history-decided-by")).toContainText("admin");
  await screenshot(page, "approvals-history");

  // The caller that was waiting gets its result.
  const result = await waiting;
  expect(result.status).toBe(200);
  expect(result.body.ok, result.body.output).toBe(true);
  expect(result.body.output).toContain(`${marker}-42`);
  const runId = result.body.runId as string;
  expect(runId).toBeTruthy();
  await waitForRunEnd(request, runId);

  // The decision is in the run's signed receipt.
  await page.goto(`/runs/${runId}`);
  await expect(page.getByTestId("receipt-verification")).toHaveAttribute("data-valid", "true");
  await expect(page.getByTestId("receipt-approval")).toContainText("approved by admin");
  await expect(page.getByTestId("receipt-approval")).toContainText(sha.slice(0, 16));
  expect(crypto.createHash("sha256").update(text).digest("hex")).toBe(sha);
  await screenshot(page, "run-receipt-with-approval");
  requests.assertNone();
});

test("operator: denying a parked call tells the waiting caller it did not run", async ({ page, context, request }) => {
  const marker = `denied-${Date.now()}`;
  const { waiting, card } = await parkOnDashboard(page, context, request, marker, `$(echo echo) ${marker}-$(whoami)`);
  await card.getByTestId("deny").click();
  const result = await waiting;
  expect(result.body.ok).toBe(false);
  expect((result.body.error as { code?: string } | undefined)?.code).toBe("denied");
  await expect(page.locator('[data-testid="history-row"]').filter({ hasText: marker }).getByTestId("history-status")).toHaveAttribute("data-value", "denied");
});

test("operator: a long call text shows its start, and the whole text (the one its sha256 covers) on request", async ({ page, context, request }) => {
  const marker = `long-${Date.now()}`;
  const tail = `end-of-${marker}`;
  const { waiting, card } = await parkOnDashboard(page, context, request, marker, `$(echo echo) ${marker}-$(true) ${"x".repeat(30_000)} ${tail}`);
  const text = card.getByTestId("approval-text");
  await expect(text).not.toContainText(tail);
  await card.getByTestId("show-all-text").click();
  await expect(text).toContainText(tail);
  const sha = (await card.getByTestId("approval-sha256").innerText()).trim();
  expect(crypto.createHash("sha256").update(await text.innerText()).digest("hex")).toBe(sha);
  await card.getByTestId("deny").click();
  expect((await waiting).body.ok).toBe(false);
});
