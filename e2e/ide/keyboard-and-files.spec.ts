import { expect, test } from "@playwright/test";
import { api, screenshot, signInContext, watchExternalRequests } from "./support";

test.afterEach(async ({ request }) => api.cleanup(request));

test.use({ viewport: { width: 1440, height: 1000 } });

test("the file tree follows changes made elsewhere; binary files show as such; Ctrl+` focuses the terminal", async ({ page, context, request }) => {
  const requests = watchExternalRequests(page);
  await signInContext(context);
  const { id: sessionId } = await api.createSession(request, { name: `files-${Date.now()}`, autonomy: "trusted" });
  const fontsLoaded: string[] = [];
  page.on("requestfinished", (finished) => {
    if (finished.url().endsWith(".woff2")) fontsLoaded.push(finished.url());
  });
  await page.goto(`/sessions/${sessionId}`);
  await expect(page.getByTestId("files-empty")).toBeVisible();
  await expect(page.getByTestId("socket-status")).toHaveText("live");

  // The page names in its <head> what it would otherwise find late (lib/preloads.tsx): the fonts, and the
  // editor bundle (editor.js and every chunk it imports). Each preloaded font is fetched once: a preload
  // the page could not use (a crossorigin mismatch, say) would be fetched a second time.
  const preloadedFonts = await page.locator('head link[rel="preload"][as="font"]').evaluateAll((links) => links.map((link) => (link as HTMLLinkElement).href));
  expect(preloadedFonts.map((href) => href.split("/").pop()?.split(".")[0]).sort()).toEqual(["inter-latin-wght-normal", "jetbrains-mono-latin-wght-normal"]);
  const editorPreloads = await page.locator('head link[rel="modulepreload"][href*="/_next/static/monaco/"]').evaluateAll((links) => links.map((link) => (link as HTMLLinkElement).href));
  expect(editorPreloads.some((href) => href.endsWith("/editor.js"))).toBe(true);
  expect(editorPreloads.filter((href) => /\/chunk-[\w-]+\.js$/.test(href)).length).toBeGreaterThanOrEqual(2);
  await expect(page.locator("[data-monaco-ready]")).toHaveCount(1);
  for (const font of preloadedFonts) expect(fontsLoaded.filter((url) => url === font)).toHaveLength(1);

  // Written by the API, not this page: the tree updates live.
  await api.tool(request, sessionId, "write_file", { path: "src/app.js", content: "console.log('hi')\n" });
  await expect(page.locator('[data-testid="tree-file"][data-path="src/app.js"]')).toBeVisible();
  await page.locator('[data-testid="tree-file"][data-path="src/app.js"]').click();
  await expect(page.getByTestId("editor").locator(".view-lines")).toContainText("console.log");
  await expect(page.getByTestId("run")).toContainText("node");

  await api.tool(request, sessionId, "bash", { action: "exec", command: "head -c 512 /dev/urandom > blob.bin; printf '\\0' >> blob.bin" });
  await expect(page.locator('[data-testid="tree-file"][data-path="blob.bin"]')).toBeVisible();
  await page.locator('[data-testid="tree-file"][data-path="blob.bin"]').click();
  await expect(page.getByTestId("file-binary")).toBeVisible();
  await screenshot(page, "ide-binary-file");

  await page.keyboard.press("Control+Backquote");
  await expect(page.getByTestId("terminal").locator(".terminal-view:not([hidden]) textarea")).toBeFocused();
  requests.assertNone();
});

test("the file tree and the bottom panel resize by mouse and keyboard, and keep their size after a reload", async ({ page, context, request }) => {
  await signInContext(context);
  const { id: sessionId } = await api.createSession(request, { name: `layout-${Date.now()}`, autonomy: "trusted" });
  await api.tool(request, sessionId, "write_file", { path: "main.py", content: "print('layout')\n" });
  await page.goto(`/sessions/${sessionId}`);
  const tree = page.locator(".file-tree");
  const bottom = page.locator(".bottom-panel");
  const width = async () => Math.round((await tree.boundingBox())!.width);
  const height = async () => Math.round((await bottom.boundingBox())!.height);
  await page.locator('[data-testid="tree-file"][data-path="main.py"]').click();
  await expect(page.getByTestId("editor").locator(".view-lines")).toContainText("layout");
  expect(await width()).toBe(240);

  // Drag the tree's edge 100 px to the right; the editor follows.
  const splitter = (await page.getByTestId("sidebar-splitter").boundingBox())!;
  const grab = { x: splitter.x + splitter.width / 2, y: splitter.y + 200 };
  await page.mouse.move(grab.x, grab.y);
  await page.mouse.down();
  await page.mouse.move(grab.x + 60, grab.y, { steps: 4 });
  await page.mouse.move(grab.x + 100, grab.y, { steps: 4 });
  await page.mouse.up();
  expect(await width()).toBe(340);
  const editorBox = (await page.getByTestId("editor").boundingBox())!;
  expect(Math.round(editorBox.x)).toBeGreaterThanOrEqual(340);

  // The panel's splitter by keyboard: two steps of 16 px up, then Shift for a large step.
  const before = await height();
  await page.getByTestId("bottom-splitter").focus();
  await page.keyboard.press("ArrowUp");
  await page.keyboard.press("ArrowUp");
  await page.keyboard.press("Shift+ArrowUp");
  expect(await height()).toBe(before + 96);
  await expect(page.getByTestId("bottom-splitter")).toHaveAttribute("aria-valuenow", String(before + 96));

  // The server renders the page at the remembered sizes (no jump after load).
  await page.reload();
  expect(await width()).toBe(340);
  expect(await height()).toBe(before + 96);
  await screenshot(page, "ide-resized");

  // Double-click puts the tree back; dragging cannot squeeze it below its minimum.
  await page.getByTestId("sidebar-splitter").dblclick();
  expect(await width()).toBe(240);
  const back = (await page.getByTestId("sidebar-splitter").boundingBox())!;
  await page.mouse.move(back.x + back.width / 2, back.y + 200);
  await page.mouse.down();
  await page.mouse.move(back.x + back.width / 2 - 400, back.y + 200, { steps: 4 });
  await page.mouse.up();
  expect(await width()).toBe(160);
});
