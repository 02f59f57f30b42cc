import { expect, test } from "@playwright/test";
import { ADMIN_TOKEN, screenshot, signInWithUi } from "../ide/support";

const auth = { authorization: `Bearer ${ADMIN_TOKEN}` };

test("an admin disables, enables and deletes a user from Settings; their token follows at once", async ({
  page,
  request,
}) => {
  page.on("dialog", (dialog) => void dialog.accept());
  const name = `leaver-${Date.now()}`;
  const user = (await (
    await request.post("/api/users", { headers: auth, data: { name, role: "developer" } })
  ).json()) as { id: string };
  const { token } = (await (
    await request.post("/api/tokens", { headers: auth, data: { userId: user.id, name: "laptop" } })
  ).json()) as { token: string };
  const me = async () => (await request.get("/api/me", { headers: { authorization: `Bearer ${token}` } })).status();
  expect(await me()).toBe(200);

  await signInWithUi(page, ADMIN_TOKEN, "/settings");
  const row = page.locator(`[data-testid="user-row"][data-user="${name}"]`);
  await row.getByTestId("toggle-user").click();
  await expect(row).toHaveAttribute("data-disabled", "true");
  await expect(row).toContainText("disabled");
  await screenshot(page, "settings-user-disabled");
  expect(await me()).toBe(401);

  await row.getByTestId("toggle-user").click();
  await expect(row).toHaveAttribute("data-disabled", "false");
  expect(await me()).toBe(200);

  await row.getByTestId("delete-user").click();
  await expect(row).toHaveCount(0);
  expect(await me()).toBe(401);
  await expect(page.locator('[data-testid="token-row"][data-label="laptop"]').filter({ hasText: name })).toContainText(
    "revoked",
  );
  // The signed-in admin gets no Delete or Disable for themselves.
  await expect(page.locator('[data-testid="user-row"][data-user="admin"]').getByTestId("delete-user")).toHaveCount(0);
});
