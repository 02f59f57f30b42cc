import { expect, test, type Page } from "@playwright/test";
import {
  ADMIN_TOKEN,
  activeTerminal,
  api,
  screenshot,
  signInWithUi,
  terminalText,
  typeInTerminal,
  watchExternalRequests,
} from "./support";

test.afterEach(async ({ request }) => api.cleanup(request));

test.use({ viewport: { width: 1440, height: 1100 } });

const prompt = /:[^\n]*\$ *$/m;

/** Waits until the visible terminal's screen matches. */
const screenMatches = (page: Page, pattern: RegExp, timeout = 15_000) =>
  expect.poll(() => terminalText(page), { timeout }).toMatch(pattern);

async function tputCols(page: Page, marker: string): Promise<number> {
  await typeInTerminal(page, `echo ${marker}=$(tput cols)`);
  await screenMatches(page, new RegExp(`^${marker}=\\d+`, "m"));
  return Number(new RegExp(`^${marker}=(\\d+)`, "m").exec(await terminalText(page))?.[1]);
}

test("the terminal is a real shell: state persists, REPLs and full-screen programs work, Ctrl+C interrupts, it follows resizes, survives a reload and has tabs", async ({
  page,
  request,
}) => {
  const requests = watchExternalRequests(page);
  await signInWithUi(page);
  // A session made with the defaults (autonomy default): the person at the keyboard needs no operator.
  const { id: sessionId } = await api.createSession(request, { name: `terminal-${Date.now()}` });
  await page.goto(`/sessions/${sessionId}`);
  await page.getByTestId("tab-terminal").click();
  await expect(page.getByTestId("terminal-tab")).toHaveCount(1);
  await screenMatches(page, /:\/workspace\$ /, 30_000);
  await screenshot(page, "terminal-1-prompt");

  // cd and export persist: one shell, not a command each.
  await typeInTerminal(page, "cd /tmp && export A=1");
  await typeInTerminal(page, "pwd; echo $A");
  await screenMatches(page, /^\/tmp\s*\n1\s*$/m);
  await screenshot(page, "terminal-2-cd-export");

  // A REPL reads its own lines.
  await typeInTerminal(page, "python3");
  await screenMatches(page, /^>>> *$/m);
  await typeInTerminal(page, "6*7");
  await screenMatches(page, /^42\s*$/m);
  await screenshot(page, "terminal-3-python");
  await typeInTerminal(page, "exit()");
  await screenMatches(page, prompt);

  // A full-screen pager: shown on the alternate screen, gone after q.
  await typeInTerminal(page, "seq 1 500 | sed 's/^/pager-line-/' > /tmp/lines.txt; less /tmp/lines.txt");
  await screenMatches(page, /^pager-line-1\s*$/m);
  await screenshot(page, "terminal-4-less");
  await page.keyboard.press("q");
  await expect.poll(() => terminalText(page)).not.toMatch(/^pager-line-2\s*$/m);
  await screenMatches(page, prompt);

  // Ctrl+C reaches the program through the line discipline.
  await typeInTerminal(page, "sleep 300");
  await page.waitForTimeout(500);
  await page.keyboard.press("Control+c");
  await screenMatches(page, /\^C/);
  await typeInTerminal(page, "echo interrupted=$?");
  await screenMatches(page, /^interrupted=130\s*$/m);
  await screenshot(page, "terminal-5-ctrl-c");

  // The PTY follows the panel's size.
  await typeInTerminal(page, "clear");
  const wide = await tputCols(page, "cols-before");
  await page.setViewportSize({ width: 900, height: 1100 });
  await expect.poll(() => tputCols(page, `cols-after-${Date.now() % 1000}`)).toBeLessThan(wide);
  await screenshot(page, "terminal-6-resized");
  await page.setViewportSize({ width: 1440, height: 1100 });

  // A reload mid-output: every line once, no gap, no duplicate.
  await typeInTerminal(page, "clear; for i in $(seq 1 10); do echo count-$i; sleep 0.4; done");
  await screenMatches(page, /^count-3\s*$/m);
  await page.reload();
  await page.getByTestId("tab-terminal").click();
  await screenMatches(page, /^count-10\s*$/m, 30_000);
  const afterReload = await terminalText(page);
  for (let i = 1; i <= 10; i++)
    expect(afterReload.match(new RegExp(`^count-${i}\\s*$`, "gm")), `count-${i}`).toHaveLength(1);
  await screenshot(page, "terminal-7-after-reload");

  // A second tab is a second shell; renamed by double-click; the first keeps its screen.
  await page.getByTestId("terminal-new").click();
  await expect(page.getByTestId("terminal-tab")).toHaveCount(2);
  await screenMatches(page, /:\/workspace\$ /, 30_000);
  await typeInTerminal(page, "echo in-second-tab; pwd");
  await screenMatches(page, /^in-second-tab\s*\n\/workspace\s*$/m);
  await page.getByTestId("terminal-tab").nth(1).locator(".terminal-tab-label").dblclick();
  await page.getByTestId("terminal-tab-rename").fill("build");
  await page.getByTestId("terminal-tab-rename").press("Enter");
  await expect(page.getByTestId("terminal-tab").nth(1)).toContainText("build");
  await screenshot(page, "terminal-8-second-tab");
  await page.getByTestId("terminal-tab").nth(0).click();
  await expect(activeTerminal(page)).toContainText("count-10");

  // Closing a tab ends its shell; its run is sealed with a receipt.
  const second = await page.getByTestId("terminal-tab").nth(1).getAttribute("data-terminal-id");
  await page.getByTestId("terminal-tab").nth(1).getByTestId("terminal-tab-close").click();
  await expect(page.getByTestId("terminal-tab")).toHaveCount(1);
  const terminalRun = async () => {
    const response = await request.get(`/api/runs?sessionId=${sessionId}`, {
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
    });
    const { runs } = (await response.json()) as {
      runs: { kind: string; outcome: string | null; receiptId: string | null }[];
    };
    return runs.find((run) => run.kind === "terminal" && JSON.stringify(run).includes(second ?? "?"));
  };
  await expect.poll(async () => (await terminalRun())?.outcome).toBe("aborted");
  expect((await terminalRun())?.receiptId).toBeTruthy();
  await screenshot(page, "terminal-9-closed-tab");
  requests.assertNone();
});
