import { expect, test } from "@playwright/test";

test("the home page shows the runner, Docker and the database up", async ({ page }) => {
  await page.goto("/");
  await expect(page.getByTestId("health-runner")).toContainText("up");
  await expect(page.getByTestId("health-docker")).toContainText("up");
  await expect(page.getByTestId("health-database")).toContainText("up");
  await page.screenshot({ path: "test-results/e2e/screens/health.png", fullPage: true });
});

test("runner paths are proxied through the web origin", async ({ request }) => {
  const response = await request.get("/healthz");
  expect(response.ok()).toBe(true);
  expect(await response.json()).toMatchObject({ ok: true, docker: { ok: true }, db: { ok: true } });
  const unauthorised = await request.get("/api/me");
  expect(unauthorised.status()).toBe(401);
});
