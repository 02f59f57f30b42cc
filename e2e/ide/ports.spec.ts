import { expect, test } from "@playwright/test";
import { ADMIN_TOKEN, api, screenshot, signInWithUi } from "./support";

test.afterEach(async ({ request }) => api.cleanup(request));

test.use({ viewport: { width: 1440, height: 1000 } });

test("Ports: a server started in the container is listed, Open shows its page in a new tab, and nobody else gets it", async ({
  page,
  browser,
  request,
}) => {
  await signInWithUi(page);
  const { id: sessionId } = await api.createSession(request, { name: `ports-${Date.now()}`, autonomy: "trusted" });
  const written = await api.tool(request, sessionId, "write_file", {
    path: "site/index.html",
    content: "<!doctype html><title>preview</title><h1>Hello from port 8000</h1>",
  });
  expect(written.body.ok, JSON.stringify(written.body)).toBe(true);
  const started = await api.tool(request, sessionId, "bash", {
    action: "start",
    command: "cd site && python3 -m http.server 8000",
  });
  expect(started.body.ok, JSON.stringify(started.body)).toBe(true);

  await page.goto(`/sessions/${sessionId}`);
  await page.getByTestId("tab-ports").click();
  const row = page.locator('[data-testid="port-row"][data-port="8000"]');
  await expect(row).toBeVisible({ timeout: 20_000 });
  await expect(row).toContainText("0.0.0.0");
  await screenshot(page, "ports-1-list");

  const [tab] = await Promise.all([page.context().waitForEvent("page"), row.getByTestId("port-open").click()]);
  await tab.waitForLoadState();
  expect(tab.url()).toMatch(new RegExp(`/sessions/${sessionId}/ports/8000/$`));
  await expect(tab.getByRole("heading", { name: "Hello from port 8000" })).toBeVisible();
  await screenshot(tab, "ports-2-preview-tab");

  // Anonymous: a fresh browser with no sign-in gets 404, as for a session that does not exist.
  const anonymous = await browser.newContext();
  const stranger = await anonymous.newPage();
  const refused = await stranger.goto(`${new URL(page.url()).origin}/sessions/${sessionId}/ports/8000/`);
  expect(refused?.status()).toBe(404);
  await screenshot(stranger, "ports-3-anonymous-404");
  await anonymous.close();

  // Another user, signed in with their own token: 404 too.
  const admin = { authorization: `Bearer ${ADMIN_TOKEN}` };
  const user = await (
    await request.post("/api/users", { headers: admin, data: { name: `ports-other-${Date.now()}`, role: "developer" } })
  ).json();
  const token = await (await request.post("/api/tokens", { headers: admin, data: { userId: user.id } })).json();
  const other = await request.get(`/sessions/${sessionId}/ports/8000/`, {
    headers: { authorization: `Bearer ${token.token}` },
  });
  expect(other.status()).toBe(404);
  expect(await other.text()).not.toContain("Hello from port 8000");
});
