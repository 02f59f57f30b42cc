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

test("sign in starts a browser session in its own HttpOnly SameSite=Strict cookie (not the token); sign out revokes it", async ({ page, context }) => {
  const requests = watchExternalRequests(page);
  await signInWithUi(page, ADMIN_TOKEN, "/");
  await expect(page.getByTestId("current-user")).toContainText("admin");
  await expect(page.getByTestId("health-runner")).toContainText("up");
  const cookies = await context.cookies();
  const cookie = cookies.find((c) => c.name === "berth_browser");
  expect(cookie?.httpOnly).toBe(true);
  expect(cookie?.sameSite).toBe("Strict");
  expect(cookie?.value).not.toContain(ADMIN_TOKEN);
  expect(cookies.some((c) => c.value.includes(ADMIN_TOKEN))).toBe(false);
  expect(await page.evaluate(() => document.cookie)).not.toContain("berth_browser");
  await screenshot(page, "home-signed-in");

  // Settings lists this browser's session.
  await page.goto("/settings");
  await expect(page.locator('[data-testid="browser-session-row"][data-current="true"]')).toBeVisible();
  await screenshot(page, "settings-browser-sessions");

  await page.getByTestId("sign-out").click();
  await page.waitForURL(/\/login/);
  expect((await context.cookies()).find((c) => c.name === "berth_browser")).toBeUndefined();
  // The revoked secret is refused even if someone kept a copy of the cookie.
  await context.addCookies([{ ...cookie!, sameSite: "Strict" }]);
  await page.goto("/approvals");
  await expect(page).toHaveURL(/\/login/);
  requests.assertNone();
});
