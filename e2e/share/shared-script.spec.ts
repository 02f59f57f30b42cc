import { expect, test } from "@playwright/test";
import { ADMIN_TOKEN, api, screenshot, waitForRunEnd } from "../ide/support";

test.afterEach(async ({ request }) => api.cleanup(request));

const auth = { authorization: `Bearer ${ADMIN_TOKEN}` };

test("teammate: the share page of an approved run_script shows the script that ran, as its signed approval bound it", async ({ request, browser }) => {
  const marker = `shared-script-${Date.now()}`;
  const { id: sessionId } = await api.createSession(request, { name: marker, autonomy: "default" });
  const source = `print("${marker}")\n`;
  expect((await api.tool(request, sessionId, "write_file", { path: "job.py", content: source })).body.ok).toBe(true);
  // At default autonomy a script's run parks; the operator (here the admin token) approves the text's sha256.
  const waiting = api.tool(request, sessionId, "run_script", { interpreter: "python3", script: "job.py" }, { wait: 120_000, timeout: 150_000 });
  let pending: { id: string; sha256: string } | undefined;
  await expect
    .poll(async () => {
      const list = (await (await request.get("/api/approvals?status=pending", { headers: auth })).json()) as { approvals: { id: string; sha256: string; sessionId: string }[] };
      pending = list.approvals.find((a) => a.sessionId === sessionId);
      return pending !== undefined;
    })
    .toBe(true);
  expect((await request.post(`/api/approvals/${pending!.id}`, { headers: auth, data: { decision: "approve", sha256: pending!.sha256 } })).status()).toBe(200);
  const ran = await waiting;
  expect(ran.body.ok, ran.body.output).toBe(true);
  await waitForRunEnd(request, ran.body.runId as string);
  const run = await api.run(request, ran.body.runId as string);
  const share = await request.post(`/api/receipts/${run.run.receiptId}/share`, { headers: auth });
  expect(share.status()).toBe(201);
  const { token } = (await share.json()) as { token: string };

  const teammate = await browser.newContext();
  try {
    const page = await teammate.newPage();
    await page.goto(`/share/${token}`);
    await expect(page.getByTestId("receipt-verification")).toHaveAttribute("data-valid", "true");
    await expect(page.getByTestId("shared-script")).toContainText("job.py (");
    await expect(page.getByTestId("shared-script-content")).toHaveText(source.trimEnd());
    await screenshot(page, "shared-script");
  } finally {
    await teammate.close();
  }
});
