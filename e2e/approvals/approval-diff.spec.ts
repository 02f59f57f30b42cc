import { expect, test } from "@playwright/test";
import { ADMIN_TOKEN, api, screenshot, signInContext } from "../ide/support";

test.afterEach(async ({ request }) => api.cleanup(request));

test("operator: a parked write_file shows its diff against the file as it is, added and removed lines marked, long unchanged runs folded; approving writes exactly that", async ({
  page,
  context,
  request,
}) => {
  const marker = `diff-${Date.now()}`;
  await signInContext(context);
  const { id: sessionId } = await api.createSession(request, { name: marker, autonomy: "default" });
  const before = Array.from({ length: 40 }, (_, i) => `line ${i + 1}`).join("\n") + "\n";
  expect((await api.tool(request, sessionId, "write_file", { path: "notes.txt", content: before })).body.ok).toBe(true);
  // Every write_file now asks an operator.
  const rule = await request.post("/api/policy-rules", { headers: { authorization: `Bearer ${ADMIN_TOKEN}` }, data: { tool: "write_file", effect: "ask" } });
  expect(rule.status()).toBe(201);
  const ruleId = ((await rule.json()) as { id: string }).id;
  try {
    await page.goto("/approvals");
    await expect(page.getByTestId("socket-status")).toHaveText("live");
    const after = before.replace("line 20\n", `line twenty ${marker}\n`) + "line 41\n";
    const waiting = api.tool(request, sessionId, "write_file", { path: "notes.txt", content: after }, { wait: 120_000, timeout: 150_000 });

    const card = page.getByTestId("pending-approval").filter({ hasText: marker });
    await expect(card).toBeVisible({ timeout: 20_000 });
    const diff = card.getByTestId("approval-diff");
    await expect(diff.getByTestId("diff-bound")).toContainText("against the current file, sha256");
    await expect(diff.getByTestId("diff-del")).toHaveText(["-line 20"]);
    await expect(diff.getByTestId("diff-add")).toHaveText([`+line twenty ${marker}`, "+line 41"]);
    // Lines 1–16 and 24–37 are folded away; the three lines around each change stay.
    await expect(diff.getByTestId("diff-fold")).toHaveText(["⋯ 16 unchanged lines", "⋯ 14 unchanged lines"]);
    await expect(diff.getByTestId("diff-same").first()).toHaveText("line 17");
    await card.scrollIntoViewIfNeeded();
    await screenshot(page, "approval-diff");

    await card.getByTestId("approve").click();
    const result = await waiting;
    expect(result.body.ok, result.body.output).toBe(true);
    const read = await api.tool(request, sessionId, "read_file", { path: "notes.txt" });
    expect(read.body.details?.content).toBe(after);
  } finally {
    await request.delete(`/api/policy-rules/${ruleId}`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
  }
});
