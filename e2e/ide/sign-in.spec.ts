import { expect, test } from "@playwright/test";
import { ADMIN_TOKEN, screenshot, signInWithUi, watchExternalRequests } from "./support";

test("a page that needs auth sends a signed-out visitor to the login page", async ({ page }) => {
  await page.goto("/runs");
  await expect(page).toHaveURL(/\/login\?next=%2Fruns/);
  await expect(page.getByTestId("login-token")).toBeVisible();
});

test("a wrong token is refused with a clear message", async ({ page }) => {
  await page.goto("/login");
  await page.getByTestId("login-token").fill("not-a-real-token");
  await page.getByTestId("login-submit").click();
  await expect(page.getByTestId("login-error")).toContainText("does not accept this token");
  await screenshot(page, "login-refused");
});

test("sign in keeps the token in an httpOnly cookie, sign out clears it", async ({ page, context }) => {
  const requests = watchExternalRequests(page);
  await signInWithUi(page, ADMIN_TOKEN, "/");
  await expect(page.getByTestId("current-user")).toContainText("admin");
  await expect(page.getByTestId("health-runner")).toContainText("up");
  const cookie = (await context.cookies()).find((c) => c.name === "berth_token");
  expect(cookie?.httpOnly).toBe(true);
  expect(cookie?.sameSite).toBe("Lax");
  expect(await page.evaluate(() => document.cookie)).not.toContain("berth_token");
  await screenshot(page, "home-signed-in");

  await page.getByTestId("sign-out").click();
  await page.waitForURL(/\/login/);
  expect((await context.cookies()).find((c) => c.name === "berth_token")).toBeUndefined();
  await page.goto("/approvals");
  await expect(page).toHaveURL(/\/login/);
  requests.assertNone();
});
