import fs from "node:fs";
import { expect, test, type APIRequestContext, type Page } from "@playwright/test";
import { api, screenshot, signInContext, watchExternalRequests } from "./support";

test.afterEach(async ({ request }) => api.cleanup(request));

test.use({ viewport: { width: 1440, height: 1000 } });

const tree = (page: Page, path: string) =>
  page.locator(`[data-path="${path}"]:is([data-testid="tree-file"],[data-testid="tree-folder"])`);

async function listed(request: APIRequestContext, sessionId: string): Promise<string[]> {
  const { body } = await api.tool(request, sessionId, "glob", { pattern: "**/*" });
  expect(body.ok).toBe(true);
  return (body.details as { files: string[] }).files;
}

async function bytesOf(request: APIRequestContext, sessionId: string, path: string): Promise<Buffer> {
  const { body } = await api.tool(request, sessionId, "read_file", { path, encoding: "base64" });
  expect(body.ok, body.output).toBe(true);
  return Buffer.from((body.details as { content: string }).content, "base64");
}

/** Drops files on an element as a desktop drag would (a DataTransfer holding Files). */
async function dropFiles(page: Page, selector: string, files: { name: string; bytes: number[] | { size: number } }[]) {
  const transfer = await page.evaluateHandle((list) => {
    const data = new DataTransfer();
    for (const { name, bytes } of list) {
      const content = Array.isArray(bytes) ? new Uint8Array(bytes) : new Uint8Array(bytes.size).fill(120);
      data.items.add(new File([content], name));
    }
    return data;
  }, files);
  await page.dispatchEvent(selector, "dragover", { dataTransfer: transfer });
  await page.dispatchEvent(selector, "drop", { dataTransfer: transfer });
}

test("the file tree: new folder, F2 rename, drag to move, delete with a confirm, upload by drop and download, each checked through the API", async ({
  page,
  context,
  request,
}) => {
  const requests = watchExternalRequests(page);
  await signInContext(context);
  const { id: sessionId } = await api.createSession(request, { name: `files-${Date.now()}`, autonomy: "default" });
  const original = 'first line\nit\'s "quoted" $HOME\n';
  expect(
    (await api.tool(request, sessionId, "write_file", { path: "docs/it's a note.txt", content: original })).body.ok,
  ).toBe(true);
  await page.goto(`/sessions/${sessionId}`);
  await expect(tree(page, "docs/it's a note.txt")).toBeVisible();

  // New folder (a name with a space), from the toolbar: it shows although empty, and exists in the workspace.
  await page.getByTestId("new-folder").click();
  await page.getByTestId("new-folder-input").fill("new dir");
  await page.getByTestId("new-folder-input").press("Enter");
  await expect(tree(page, "new dir")).toBeVisible();
  expect(
    (await api.tool(request, sessionId, "bash", { command: "test -d 'new dir' && echo yes" })).body.details?.stdout,
  ).toBe("yes\n");

  // F2 renames inline; the file keeps its bytes.
  await tree(page, "docs/it's a note.txt").press("F2");
  await page.getByTestId("rename-input").fill("renamed 'note'.txt");
  await page.getByTestId("rename-input").press("Enter");
  await expect(tree(page, "docs/renamed 'note'.txt")).toBeVisible();
  expect(await listed(request, sessionId)).toEqual(["docs/renamed 'note'.txt"]);
  expect((await bytesOf(request, sessionId, "docs/renamed 'note'.txt")).toString()).toBe(original);

  // Drag onto a folder moves it there.
  await tree(page, "docs/renamed 'note'.txt").dragTo(tree(page, "new dir"));
  await expect(tree(page, "new dir/renamed 'note'.txt")).toBeVisible();
  expect(await listed(request, sessionId)).toEqual(["new dir/renamed 'note'.txt"]);

  // Upload by dropping files from the desktop onto the folder: every byte value survives.
  const binary = Array.from({ length: 3000 }, (_, i) => (i * 7) % 256);
  await dropFiles(page, '[data-testid="tree-folder"][data-path="new dir"]', [
    { name: "data.bin", bytes: binary },
    { name: "hello world.txt", bytes: [...Buffer.from("hello\n")] },
  ]);
  await expect(page.getByTestId("uploads")).toContainText("2/2 uploaded");
  await expect(tree(page, "new dir/data.bin")).toBeVisible();
  expect([...(await bytesOf(request, sessionId, "new dir/data.bin"))]).toEqual(binary);
  expect((await bytesOf(request, sessionId, "new dir/hello world.txt")).toString()).toBe("hello\n");
  await screenshot(page, "files-uploaded");

  // Over write_file's limit: refused before sending, the limit and the size named; nothing is written.
  await dropFiles(page, '[data-testid="tree-body"]', [{ name: "big.bin", bytes: { size: 9 * 1024 * 1024 } }]);
  await expect(page.getByTestId("tree-error")).toContainText("big.bin is 9.0 MiB: uploads are limited to 8.0 MiB");
  expect(await listed(request, sessionId)).not.toContain("big.bin");
  await screenshot(page, "files-upload-too-large");

  // Download from the context menu: the browser gets the same bytes.
  await tree(page, "new dir/data.bin").click({ button: "right" });
  await expect(page.getByTestId("tree-menu")).toBeVisible();
  await screenshot(page, "files-context-menu");
  const downloading = page.waitForEvent("download");
  await page.getByTestId("tree-menu").getByRole("menuitem", { name: "Download" }).click();
  const download = await downloading;
  expect(download.suggestedFilename()).toBe("data.bin");
  expect([...fs.readFileSync(await download.path())]).toEqual(binary);

  // Delete a folder from the context menu: the confirm names the folder and how many files go with it.
  let asked = "";
  page.once("dialog", (dialog) => {
    asked = dialog.message();
    void dialog.accept();
  });
  await tree(page, "new dir").click({ button: "right" });
  await page
    .getByTestId("tree-menu")
    .getByRole("menuitem", { name: /Delete/ })
    .click();
  await expect(tree(page, "new dir")).toHaveCount(0);
  expect(asked).toBe("Delete the folder new dir and the 3 files in it? This cannot be undone.");
  expect(await listed(request, sessionId)).toEqual([]);

  // Del on a file, dismissed: nothing goes.
  expect((await api.tool(request, sessionId, "write_file", { path: "keep.txt", content: "keep\n" })).body.ok).toBe(
    true,
  );
  await expect(tree(page, "keep.txt")).toBeVisible();
  page.once("dialog", (dialog) => void dialog.dismiss());
  await tree(page, "keep.txt").press("Delete");
  await expect(tree(page, "keep.txt")).toBeVisible();
  expect(await listed(request, sessionId)).toEqual(["keep.txt"]);
  requests.assertNone();
});

test("Ctrl+P opens a file three folders deep; Ctrl+Shift+F finds a line in a 10k-file tree and opens it at that line; F1 runs a command", async ({
  page,
  context,
  request,
}) => {
  await signInContext(context);
  const { id: sessionId } = await api.createSession(request, { name: `search-${Date.now()}`, autonomy: "trusted" });
  // 10,000 files in one bash call, one of them with the line to find (line 3).
  const made = await api.tool(request, sessionId, "bash", {
    timeoutMs: 120_000,
    command:
      "mkdir -p gen/{0..99} && for i in $(seq 0 9999); do printf 'alpha\\nfiller %d\\n' $i > gen/$((i % 100))/f$i.txt; done && printf 'one\\ntwo\\nthe needle-x7q is here\\nfour\\n' > gen/42/f4242.txt && find gen -type f | wc -l",
  });
  expect(made.body.details?.stdout).toBe("10000\n");
  expect(
    (
      await api.tool(request, sessionId, "write_file", {
        path: "src/deep/er/target module.py",
        content: "print('deep')\n",
      })
    ).body.ok,
  ).toBe(true);
  await page.goto(`/sessions/${sessionId}`);
  await expect(page.getByTestId("socket-status")).toHaveText("live");
  await expect(page.locator("[data-monaco-ready]")).toHaveCount(1);

  // Quick open: fuzzy by name, Enter opens.
  await page.keyboard.press("Control+p");
  await expect(page.getByTestId("quick-open-input")).toBeFocused();
  await page.getByTestId("quick-open-input").fill("targmod");
  await expect(page.getByTestId("quick-open-item").first()).toHaveAttribute(
    "data-path",
    "src/deep/er/target module.py",
  );
  await screenshot(page, "quick-open");
  await page.keyboard.press("Enter");
  await expect(page.getByTestId("quick-open")).toHaveCount(0);
  await expect(page.locator('[data-testid="editor-tab"][data-path="src/deep/er/target module.py"]')).toHaveAttribute(
    "aria-selected",
    "true",
  );
  await expect(page.getByTestId("editor").locator(".view-lines")).toContainText("print('deep')");

  // Search across files: one match among 10k files, highlighted; a click opens the file at line 3.
  await page.keyboard.press("Control+Shift+F");
  await expect(page.getByTestId("search-input")).toBeFocused();
  await page.getByTestId("search-input").fill("needle-x7q");
  await page.getByTestId("search-input").press("Enter");
  const result = page.getByTestId("search-result");
  await expect(result).toHaveCount(1);
  await expect(result).toHaveAttribute("data-path", "gen/42/f4242.txt");
  await expect(result).toHaveAttribute("data-line", "3");
  await expect(result.getByTestId("search-hit")).toHaveText("needle-x7q");
  await expect(page.getByTestId("search-summary")).toHaveText("1 match in 1 file");
  await screenshot(page, "search-results");
  await result.click();
  await expect(page.locator('[data-testid="editor-tab"][data-path="gen/42/f4242.txt"]')).toHaveAttribute(
    "aria-selected",
    "true",
  );
  await expect(page.getByTestId("editor").locator(".line-numbers.active-line-number")).toHaveText("3");
  await screenshot(page, "search-opened-at-line");

  // The filters: case, regex and a file-name glob reach grep.
  await page.getByTestId("search-input").fill("NEEDLE-X7Q");
  await page.getByTestId("search-case").check();
  await page.getByTestId("search-go").click();
  await expect(page.getByTestId("search-summary")).toHaveText("0 matches in 0 files");
  await page.getByTestId("search-case").uncheck();
  await page.getByTestId("search-regex").check();
  await page.getByTestId("search-input").fill("filler 99(98|99)$");
  await page.getByTestId("search-go").click();
  await expect(page.getByTestId("search-summary")).toHaveText("2 matches in 2 files");
  await page.getByTestId("search-include").fill("*.py");
  await page.getByTestId("search-go").click();
  await expect(page.getByTestId("search-summary")).toHaveText("0 matches in 0 files");

  // The command palette: F1, a command by name.
  await page.keyboard.press("F1");
  await page.getByTestId("quick-open-input").pressSequentially("session runs");
  await expect(page.getByTestId("palette-command").first()).toContainText("Show this session's runs");
  await screenshot(page, "command-palette");
  await page.keyboard.press("Enter");
  await expect(page.getByTestId("tab-runs")).toHaveClass(/active/);
});
