import { expect, test } from "@playwright/test";
import { api, screenshot, signInContext, waitForRunEnd } from "../ide/support";

test.afterEach(async ({ request }) => api.cleanup(request));

// Two lines a second apart, one on stderr between: each line keeps the time it was written.
const SCRIPT = ["import sys, time", "print('first', flush=True)", "time.sleep(1.2)", "print('on stderr', file=sys.stderr, flush=True)", "time.sleep(1.2)", "print('last', flush=True)"].join("\n");

test("run log: the Timestamps toggle prefixes each line with when the runner received it, the run's start on hover", async ({ page, context, request }) => {
  const { id: sessionId } = await api.createSession(request, { name: `log-times-${Date.now()}`, autonomy: "trusted" });
  await api.tool(request, sessionId, "write_file", { path: "slow.py", content: `${SCRIPT}\n` });
  const ran = await api.tool(request, sessionId, "run_script", { interpreter: "python3", script: "slow.py" });
  expect(ran.body.ok, ran.body.output).toBe(true);
  const runId = ran.body.runId as string;
  await waitForRunEnd(request, runId);

  await signInContext(context);
  await page.goto(`/runs/${runId}`);
  const log = page.getByTestId("log-view");
  await expect(log).toContainText("last");
  await expect(log.getByTestId("log-time")).toHaveCount(0);

  await page.getByTestId("log-timestamps").check();
  const times = log.getByTestId("log-time");
  await expect(times).toHaveCount(3);
  for (const text of await times.allTextContents()) expect(text).toMatch(/^\d\d:\d\d:\d\d\.\d{3}$/);
  // The runner's record, not the page's clock: a second and more between the lines, in order.
  const at = (await times.evaluateAll((els) => els.map((el) => el.getAttribute("datetime") ?? ""))).map((iso) => Date.parse(iso));
  expect(at[1]! - at[0]!).toBeGreaterThanOrEqual(1000);
  expect(at[2]! - at[1]!).toBeGreaterThanOrEqual(1000);
  await expect(times.first()).toHaveAttribute("title", /^\+\d+\.\d{3} s after the run started, /);
  await expect(log.locator('[data-testid="log-line"][data-stream="stderr"]')).toContainText("on stderr");
  await screenshot(page, "run-log-timestamps");

  await page.getByTestId("log-timestamps").uncheck();
  await expect(log.getByTestId("log-time")).toHaveCount(0);
});
