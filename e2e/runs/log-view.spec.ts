import { expect, test } from "@playwright/test";
import { api, screenshot, signInContext, waitForRunEnd, watchExternalRequests } from "../ide/support";

test.afterEach(async ({ request }) => api.cleanup(request));

// Colours, a \r progress bar, a ::group:: section and a line on stderr, the way CI output looks.
const SCRIPT = [
  "import sys, time",
  "print('plain first line')",
  "print('\\x1b[31mred error\\x1b[0m and \\x1b[32mgreen ok\\x1b[0m')",
  "for p in range(0, 101, 20):",
  "    sys.stdout.write('\\rprogress %3d%%' % p); sys.stdout.flush(); time.sleep(0.02)",
  "print()",
  "print('::group::Install deps')",
  "print('inside the group')",
  "print('::endgroup::')",
  "time.sleep(0.2)",
  "print('a warning on stderr', file=sys.stderr); time.sleep(0.2)",
  "print('after the group')",
].join("\n");

test("run log: colours, one progress line, a fold, stderr marked, #L3 permalink, search", async ({
  page,
  context,
  request,
}) => {
  const requests = watchExternalRequests(page);
  const { id: sessionId } = await api.createSession(request, { name: `log-view-${Date.now()}`, autonomy: "trusted" });
  await api.tool(request, sessionId, "write_file", { path: "ci.py", content: `${SCRIPT}\n` });
  const ran = await api.tool(request, sessionId, "run_script", { interpreter: "python3", script: "ci.py" });
  expect(ran.body.ok, ran.body.output).toBe(true);
  const runId = ran.body.runId as string;
  await waitForRunEnd(request, runId);

  await signInContext(context);
  await page.goto(`/runs/${runId}#L3`);
  const log = page.getByTestId("log-view");
  await expect(log).toContainText("plain first line");
  await expect(page.getByTestId("run-command")).toHaveText("python3 ci.py");

  // ANSI colours are styles, never raw escapes.
  await expect(log.locator("span", { hasText: /^red error$/ })).toHaveCSS("color", "rgb(205, 49, 49)");
  await expect(log.locator("span", { hasText: /^green ok$/ })).toHaveCSS("color", "rgb(13, 188, 121)");
  expect(await log.innerText()).not.toContain("\u001b[");

  // The \r frames are one line: the last one.
  const progress = page.locator('[data-testid="log-line"]', { hasText: "progress" });
  await expect(progress).toHaveCount(1);
  await expect(progress).toContainText("progress 100%");

  // #L3 is the progress line, selected and in view.
  const third = page.locator('[data-testid="log-line"][data-line="3"]');
  await expect(third).toHaveAttribute("data-selected", "true");
  await expect(third).toBeInViewport();

  // The group is folded: its header shows, its content does not until opened.
  const group = page.getByTestId("log-group");
  await expect(group).toHaveText(/Install deps/);
  await expect(group).toHaveAttribute("aria-expanded", "false");
  await expect(log).not.toContainText("inside the group");
  await expect(log).not.toContainText("::endgroup::");
  await screenshot(page, "log-view-folded");
  await group.click();
  await expect(log).toContainText("inside the group");

  // stderr is in the same log, in the order written, and marked.
  const warning = page.locator('[data-testid="log-line"]', { hasText: "a warning on stderr" });
  await expect(warning).toHaveAttribute("data-stream", "stderr");
  const order = await page
    .getByTestId("log-line")
    .evaluateAll((rows) => rows.map((row) => (row as HTMLElement).innerText));
  const at = (text: string) => order.findIndex((row) => row.includes(text));
  expect(at("inside the group")).toBeLessThan(at("a warning on stderr"));
  expect(at("a warning on stderr")).toBeLessThan(at("after the group"));

  // Search: next and previous move between the matching lines.
  await page.getByTestId("log-search").fill("green");
  await expect(page.getByTestId("log-search-count")).toHaveText("1 of 1");
  await page.getByTestId("log-search").fill("group");
  await expect(page.getByTestId("log-search-count")).toHaveText("1 of 3");
  await page.getByTestId("log-search-next").click();
  await expect(page.getByTestId("log-search-count")).toHaveText("2 of 3");
  await expect(page.locator('[data-testid="log-line"][data-current="true"]')).toContainText("inside the group");
  await page.getByTestId("log-search-prev").click();
  await expect(page.locator('[data-testid="log-line"][data-current="true"]')).toContainText("Install deps");
  await screenshot(page, "log-view-open-search");

  // The raw download is the log as written, escapes and all.
  const href = await page.getByTestId("log-download").getAttribute("href");
  const raw = await (await page.request.get(href ?? "")).text();
  expect(raw).toContain("\u001b[31mred error");
  expect(raw).toContain("::group::Install deps");
  requests.assertNone();
});
