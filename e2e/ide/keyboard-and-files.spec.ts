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
  await expect(page.getByTestId("terminal").locator("textarea")).toBeFocused();
  requests.assertNone();
});
