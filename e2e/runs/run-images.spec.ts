import { expect, test } from "@playwright/test";
import { startEverythingServer } from "../../apps/runner/src/testing/everything-server";
import { ADMIN_TOKEN, api, screenshot, signInContext, waitForRunEnd } from "../ide/support";

test.afterEach(async ({ request }) => api.cleanup(request));

test("an upstream MCP tool's image is shown as an image on its run page and in the IDE's output pane", async ({ page, context, request }) => {
  const everything = await startEverythingServer();
  const auth = { authorization: `Bearer ${ADMIN_TOKEN}` };
  // A global (operator) server may be on loopback; removed again so no other spec sees its tools.
  const registered = await request.post("/api/mcp-servers", { headers: auth, data: { name: "everything-e2e", transport: "http", url: everything.url, scope: "global" } });
  expect(registered.status(), await registered.text()).toBe(201);
  const { id: serverId } = (await registered.json()) as { id: string };
  try {
    const { id: sessionId } = await api.createSession(request, { name: `images-${Date.now()}`, autonomy: "trusted" });
    const found = await api.tool(request, sessionId, "gateway", { op: "find", query: "get-tiny-image" });
    const capability = (found.body.details as { capabilities: { name: string }[] }).capabilities.find((c) => c.name.endsWith("get-tiny-image"))?.name;
    expect(capability).toBeDefined();
    const called = await api.tool(request, sessionId, "gateway", { op: "call", capability, args: {} });
    expect(called.body.ok, JSON.stringify(called.body).slice(0, 300)).toBe(true);
    // REST callers read the stand-in; the run keeps the picture.
    expect(called.body.output).toMatch(/\[image image\/png, \d+ bytes\]/);
    const runId = called.body.runId as string;
    await waitForRunEnd(request, runId);

    await signInContext(context);
    await page.goto(`/runs/${runId}`);
    const image = page.getByTestId("result-images").locator("img");
    await expect(image).toHaveCount(1);
    await expect.poll(() => image.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth > 0)).toBe(true);
    await screenshot(page, "run-image");

    await page.goto(`/sessions/${sessionId}`);
    await page.getByTestId("tab-runs").click();
    await page.getByTestId("session-run-row").filter({ hasText: capability! }).getByRole("button", { name: "show output" }).click();
    const inIde = page.getByTestId("result-images").locator("img");
    await expect.poll(() => inIde.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth > 0)).toBe(true);
    await screenshot(page, "ide-run-image");
  } finally {
    await request.delete(`/api/mcp-servers/${serverId}`, { headers: auth });
    await everything.stop();
  }
});
