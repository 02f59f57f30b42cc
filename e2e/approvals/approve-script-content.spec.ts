import { expect, test } from "@playwright/test";
import { api, screenshot, signInContext } from "../ide/support";

test.afterEach(async ({ request }) => api.cleanup(request));

test("operator: a parked run_script shows the script's content it binds, and approving runs exactly that", async ({
  page,
  context,
  request,
}) => {
  const marker = `script-${Date.now()}`;
  await signInContext(context);
  await page.goto("/approvals");
  await expect(page.getByTestId("socket-status")).toHaveText("live");
  const { id: sessionId } = await api.createSession(request, { name: marker, autonomy: "default" });
  const source = `print("${marker}", 6 * 7)\n`;
  const written = await api.tool(request, sessionId, "write_file", { path: "job.py", content: source });
  expect(written.body.ok).toBe(true);
  const waiting = api.tool(
    request,
    sessionId,
    "run_script",
    { interpreter: "python3", script: "job.py", env: { API_TOKEN: `${marker}-secret` } },
    { wait: 120_000, timeout: 150_000 },
  );

  const card = page.getByTestId("pending-approval").filter({ hasText: marker });
  await expect(card).toBeVisible({ timeout: 20_000 });
  await expect(card.getByTestId("approval-script")).toContainText("job.py (");
  await expect(card.getByTestId("approval-script-content")).toHaveText(source.trimEnd());
  await expect(card.getByTestId("approval-text")).toContainText('"API_TOKEN":"***"');
  await expect(card).not.toContainText(`${marker}-secret`);
  await screenshot(page, "approvals-script-content");

  await card.getByTestId("approve").click();
  const result = await waiting;
  expect(result.body.ok, result.body.output).toBe(true);
  expect(result.body.output).toContain(`${marker} 42`);
});
