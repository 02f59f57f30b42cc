import { expect, test } from "@playwright/test";
import { api, screenshot, signInContext, waitForRunEnd, watchExternalRequests } from "../ide/support";

test.afterEach(async ({ request }) => api.cleanup(request));

test("teammate: a share link opens in a fresh browser with no token and shows the receipt verified", async ({ page, context, request, browser }) => {
  // The developer's side: a run with a receipt, shared from its run page.
  const { id: sessionId } = await api.createSession(request, { name: `share-${Date.now()}`, autonomy: "trusted" });
  await api.tool(request, sessionId, "write_file", { path: "report.py", content: "print('shared output 42')\n" });
  const ran = await api.tool(request, sessionId, "run_script", { interpreter: "python3", script: "report.py" });
  expect(ran.body.ok, ran.body.output).toBe(true);
  const runId = ran.body.runId as string;
  await waitForRunEnd(request, runId);

  await signInContext(context);
  await page.goto(`/runs/${runId}`);
  await expect(page.getByTestId("receipt-verification")).toHaveAttribute("data-valid", "true");
  await page.getByTestId("share-receipt").click();
  const shareUrl = await page.getByTestId("share-url").inputValue();
  expect(shareUrl).toMatch(/\/share\/[^/]+$/);
  await screenshot(page, "run-detail-shared");

  // The teammate's side: a new context, no cookie, no token.
  const teammate = await browser.newContext();
  try {
    expect(await teammate.cookies()).toEqual([]);
    const shared = await teammate.newPage();
    const requests = watchExternalRequests(shared);
    await shared.goto(new URL(shareUrl).pathname);
    await expect(shared.getByTestId("receipt-verification")).toHaveAttribute("data-valid", "true");
    await expect(shared.getByTestId("receipt-verification")).toContainText("Verified");
    await expect(shared.getByTestId("receipt-outcome")).toHaveAttribute("data-value", "succeeded");
    await expect(shared.getByTestId("shared-log")).toContainText("shared output 42");
    // Nothing else of the session: no app navigation, no session id on the page.
    await expect(shared.getByTestId("nav-runs")).toHaveCount(0);
    await expect(shared.getByTestId("current-user")).toHaveCount(0);
    expect(await shared.locator("body").innerText()).not.toContain(sessionId);
    await screenshot(shared, "shared-receipt");
    requests.assertNone();

    // The runner's REST stays closed to this visitor.
    const denied = await shared.request.get(`/api/runs/${runId}`);
    expect(denied.status()).toBe(401);
  } finally {
    await teammate.close();
  }
});

test("an unknown share link says so", async ({ page }) => {
  await page.goto("/share/not-a-real-share-token");
  await expect(page.getByTestId("share-error")).toBeVisible();
});
