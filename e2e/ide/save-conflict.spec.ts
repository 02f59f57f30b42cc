import { expect, test, type APIRequestContext, type Page } from "@playwright/test";
import { api, screenshot, signInContext } from "./support";

test.afterEach(async ({ request }) => api.cleanup(request));

test.use({ viewport: { width: 1440, height: 1000 } });

const treeFile = (page: Page, path: string) => page.locator(`[data-testid="tree-file"][data-path="${path}"]`);
const editorLines = (page: Page) => page.getByTestId("editor").locator(".view-lines");
const tab = (page: Page, path: string) => page.locator(`[data-testid="editor-tab"][data-path="${path}"]`);

async function onDisk(request: APIRequestContext, sessionId: string, path: string): Promise<string> {
  const { body } = await api.tool(request, sessionId, "read_file", { path });
  expect(body.ok, body.output).toBe(true);
  return (body.details as { content: string }).content;
}

/** Opens a file, types at its end (the tab is dirty), then an agent rewrites it through the API and the user saves. */
async function editThenAgentWrites(
  page: Page,
  request: APIRequestContext,
  sessionId: string,
  path: string,
  agents: string,
) {
  await treeFile(page, path).click();
  await expect(editorLines(page)).toContainText("original");
  await editorLines(page).click();
  await page.keyboard.press("Control+End");
  await page.keyboard.type("mine\n");
  await expect(tab(page, path)).toHaveAttribute("data-dirty", "true");
  const agentWrite = await api.tool(request, sessionId, "write_file", { path, content: agents });
  expect(agentWrite.body.ok, agentWrite.body.output).toBe(true);
  await page.keyboard.press("Control+S");
  await expect(page.getByTestId("save-conflict")).toBeVisible();
  await expect(page.getByTestId("save-conflict")).toContainText("This file changed on disk since you opened it");
  // The refused save wrote nothing: the agent's version is still there.
  expect(await onDisk(request, sessionId, path)).toBe(agents);
}

test("a save after an agent's write_file shows the conflict; Compare shows both, Overwrite saves the user's version", async ({
  page,
  context,
  request,
}) => {
  await signInContext(context);
  const { id: sessionId } = await api.createSession(request, { name: `conflict-${Date.now()}`, autonomy: "trusted" });
  await api.tool(request, sessionId, "write_file", { path: "notes.txt", content: "original\n" });
  await page.goto(`/sessions/${sessionId}`);

  await editThenAgentWrites(page, request, sessionId, "notes.txt", "original\nagent's line\n");
  await screenshot(page, "save-conflict-bar");

  await page.getByTestId("conflict-compare").click();
  const diff = page.getByTestId("conflict-diff");
  await expect(diff.locator(".editor.original .view-lines")).toContainText("agent's line");
  await expect(diff.locator(".editor.modified .view-lines")).toContainText("mine");
  await screenshot(page, "save-conflict-compare");

  await page.getByTestId("conflict-overwrite").click();
  await expect(page.getByTestId("save-conflict")).toHaveCount(0);
  await expect(tab(page, "notes.txt")).toHaveAttribute("data-dirty", "false");
  expect(await onDisk(request, sessionId, "notes.txt")).toBe("original\nmine\n");

  // The overwrite's hash is the new baseline: the next save goes through without a conflict.
  await editorLines(page).click();
  await page.keyboard.press("Control+End");
  await page.keyboard.type("more\n");
  // The editor has taken the last Enter (a fourth, empty line) before the save, however loaded the machine.
  await expect(editorLines(page).locator(".view-line")).toHaveCount(4);
  await page.keyboard.press("Control+S");
  await expect(tab(page, "notes.txt")).toHaveAttribute("data-dirty", "false");
  await expect(page.getByTestId("save-conflict")).toHaveCount(0);
  expect(await onDisk(request, sessionId, "notes.txt")).toBe("original\nmine\nmore\n");
});

test("Reload takes the disk version and keeps the user's recoverable; after a page reload the tabs, the active tab and the cursor are back", async ({
  page,
  context,
  request,
}) => {
  await signInContext(context);
  const { id: sessionId } = await api.createSession(request, { name: `reload-${Date.now()}`, autonomy: "trusted" });
  const long = Array.from({ length: 200 }, (_, i) => `line ${i + 1}`).join("\n") + "\n";
  await api.tool(request, sessionId, "write_file", { path: "a.txt", content: "original a\n" });
  await api.tool(request, sessionId, "write_file", { path: "gone.txt", content: "original gone\n" });
  await api.tool(request, sessionId, "write_file", { path: "src/long.txt", content: long });
  await page.goto(`/sessions/${sessionId}`);

  await editThenAgentWrites(page, request, sessionId, "a.txt", "agent's a\n");
  await page.getByTestId("conflict-reload").click();
  await expect(editorLines(page)).toContainText("agent's a");
  await expect(editorLines(page)).not.toContainText("mine");
  await expect(page.getByTestId("save-conflict")).toHaveAttribute("data-reloaded", "true");
  await expect(tab(page, "a.txt")).toHaveAttribute("data-dirty", "false");
  // Still recoverable: Compare shows the user's version beside the disk's, and Restore mine brings it back.
  await page.getByTestId("conflict-compare").click();
  await expect(page.getByTestId("conflict-diff").locator(".editor.modified .view-lines")).toContainText("mine");
  await screenshot(page, "save-conflict-reloaded");
  expect(await onDisk(request, sessionId, "a.txt")).toBe("agent's a\n");
  await page.getByTestId("conflict-restore").click();
  await expect(page.getByTestId("save-conflict")).toHaveCount(0);
  await expect(editorLines(page)).toContainText("mine");
  await page.keyboard.press("Control+S");
  await expect(tab(page, "a.txt")).toHaveAttribute("data-dirty", "false");
  expect(await onDisk(request, sessionId, "a.txt")).toBe("original a\nmine\n");

  // Three more tabs; the cursor goes to line 195 of the long file, scrolled to its end.
  await treeFile(page, "gone.txt").click();
  await expect(editorLines(page)).toContainText("original gone");
  await treeFile(page, "src/long.txt").click();
  await expect(editorLines(page)).toContainText("line 1");
  await expect(editorLines(page)).not.toContainText("line 200");
  await editorLines(page).click();
  await page.keyboard.press("Control+End");
  for (let i = 0; i < 6; i++) await page.keyboard.press("ArrowUp");
  await page.keyboard.press("End");
  await expect(editorLines(page)).toContainText("line 200");
  // A remembered file that is gone by the reload is dropped quietly.
  expect((await api.tool(request, sessionId, "bash", { command: "rm gone.txt" })).body.ok).toBe(true);
  await page.waitForTimeout(400); // the cursor is remembered 250 ms after it moves

  await page.reload();
  await expect(tab(page, "a.txt")).toBeVisible();
  await expect(tab(page, "src/long.txt")).toHaveAttribute("aria-selected", "true");
  await expect(tab(page, "gone.txt")).toHaveCount(0);
  await expect(page.locator('[data-testid="editor-tab"]')).toHaveCount(2);
  await expect(editorLines(page)).toContainText("line 200");
  await screenshot(page, "editor-state-restored");
  // Typing without clicking lands where the cursor was: the end of line 195.
  // Focus Monaco's input element (an EditContext div in Chromium, a textarea elsewhere) without a click.
  await page.getByTestId("editor").locator(".native-edit-context, textarea.inputarea").first().focus();
  await page.keyboard.type("Z");
  await expect(editorLines(page)).toContainText("line 195Z");
  await page.keyboard.press("Control+S");
  await expect(tab(page, "src/long.txt")).toHaveAttribute("data-dirty", "false");
  expect(await onDisk(request, sessionId, "src/long.txt")).toBe(long.replace("line 195\n", "line 195Z\n"));
});
