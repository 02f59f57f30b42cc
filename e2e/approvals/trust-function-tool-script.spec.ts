import crypto from "node:crypto";
import { expect, test } from "@playwright/test";
import { ADMIN_TOKEN, api, screenshot, signInContext } from "../ide/support";

test.afterEach(async ({ request }) => api.cleanup(request));

const auth = { authorization: `Bearer ${ADMIN_TOKEN}` };
const SCRIPT = `import json, sys\nargs = json.loads(sys.argv[1])\nprint("words:", len(args["text"].split()))\n`;

// A function tool (berth.tools.json) runs a workspace script, so its calls park until an operator trusts the script's
// bytes: the approval card names the script and its sha256, and "Trust this script" adds the allow rule for them.
test("operator: a parked function tool's card trusts its script, and the tool's next call runs unasked", async ({ page, context, request }) => {
  const marker = `trust-${Date.now()}`;
  const tool = `count_words_${Date.now().toString(36)}`;
  await signInContext(context);
  const { id: sessionId } = await api.createSession(request, { name: marker, autonomy: "default" });
  const declaration = {
    tools: [{ name: tool, description: "Count words.", parameters: { type: "object", properties: { text: { type: "string" } }, required: ["text"] }, script: "tools/count_words.py", interpreter: "python3", actionClass: "read" }],
  };
  for (const [path, content] of [["tools/count_words.py", SCRIPT], ["berth.tools.json", JSON.stringify(declaration)]]) {
    expect((await api.tool(request, sessionId, "write_file", { path, content })).body.ok).toBe(true);
  }
  const parked = await api.tool(request, sessionId, tool, { text: `${marker} one two` });
  expect(parked.status).toBe(202);

  await page.goto("/approvals");
  const card = page.getByTestId("pending-approval").filter({ hasText: marker });
  const trust = card.getByTestId("trust-script");
  const sha256 = crypto.createHash("sha256").update(SCRIPT).digest("hex");
  await expect(trust).toContainText("tools/count_words.py");
  await expect(trust).toContainText(sha256);
  await trust.getByTestId("trust-script-button").click();
  await expect(card.getByTestId("trust-script-done")).toContainText(`${tool} runs unasked while tools/count_words.py has these bytes`);
  await screenshot(page, "approvals-trust-script");

  const rules = (await (await request.get("/api/policy-rules", { headers: auth })).json()) as { rules: { id: string; tool: string; effect: string; scriptSha256: string | null }[] };
  const rule = rules.rules.find((r) => r.tool === tool);
  expect(rule).toMatchObject({ effect: "allow", scriptSha256: sha256 });
  try {
    const ran = await api.tool(request, sessionId, tool, { text: "three more words" });
    expect(ran.status).toBe(200);
    expect(ran.body.output).toContain("words: 3");
  } finally {
    await request.delete(`/api/policy-rules/${rule!.id}`, { headers: auth });
  }
});
