import { expect, test, type APIRequestContext, type BrowserContext, type Page } from "@playwright/test";
import { api, signInContext, watchExternalRequests } from "./support";

test.afterEach(async ({ request }) => api.cleanup(request));

test.use({ viewport: { width: 1440, height: 1000 } });

/** Holds React's own chunks until the returned function is called: what a page does meanwhile is before hydration. */
async function holdReactChunks(page: Page): Promise<() => void> {
  let release = () => {};
  const held = new Promise<void>((resolve) => (release = resolve));
  await page.route(/\/_next\/static\/chunks\/[^/]+\.js$/, async (route) => {
    await held;
    await route.continue();
  });
  return release;
}

/**
 * A session of its own with `setup` run in it (bash), its IDE opened with React's chunks held: what the test does
 * until it calls the returned release is before hydration.
 */
async function ideBeforeHydration(page: Page, context: BrowserContext, request: APIRequestContext, name: string, setup: string): Promise<() => void> {
  await signInContext(context);
  const { id: sessionId } = await api.createSession(request, { name: `${name}-${Date.now()}`, autonomy: "trusted" });
  await api.tool(request, sessionId, "bash", { command: setup });
  const release = await holdReactChunks(page);
  await page.goto(`/sessions/${sessionId}`, { waitUntil: "commit" });
  return release;
}

// The IDE page's early script (lib/preloads.tsx, monaco/entry.ts) creates the editor before React hydrates
// and marks it ready then; a file clicked in the server-rendered tree meanwhile must open once React adopts
// the editor. React's own chunks are held back here so the click surely comes before hydration.
test("the early editor is ready before hydration and opens a file clicked before React took over", async ({ page, context, request }) => {
  const requests = watchExternalRequests(page);
  await signInContext(context);
  const { id: sessionId } = await api.createSession(request, { name: `early-${Date.now()}`, autonomy: "trusted" });
  await api.tool(request, sessionId, "write_file", { path: "main.py", content: "print('early')\n" });

  const release = await holdReactChunks(page);
  await page.goto(`/sessions/${sessionId}`, { waitUntil: "commit" });

  await expect(page.locator("[data-monaco-ready]")).toHaveCount(1);
  await expect(page.locator("[data-editor-adopted]")).toHaveCount(0);
  // The stylesheet the server HTML carries is the one the editor uses: not linked a second time.
  await expect(page.locator('link[rel="stylesheet"][href$="/editor.css"]')).toHaveCount(1);
  await page.locator('[data-testid="tree-file"][data-path="main.py"]').click();

  release();
  await expect(page.locator("[data-editor-adopted]")).toHaveCount(1);
  await expect(page.locator('[data-testid="editor-tab"][data-path="main.py"]')).toHaveAttribute("aria-selected", "true");
  await expect(page.getByTestId("editor").locator(".monaco-editor .view-lines")).toContainText("print('early')");

  // Adopted, it edits as ever: typing marks the tab dirty, Ctrl+S saves.
  await page.getByTestId("editor").locator(".monaco-editor").click();
  await page.keyboard.press("ControlOrMeta+End");
  await page.keyboard.insertText("print('late')\n");
  await expect(page.locator('[data-testid="editor-tab"][data-path="main.py"]')).toHaveAttribute("data-dirty", "true");
  await page.keyboard.press("ControlOrMeta+s");
  await expect(page.locator('[data-testid="editor-tab"][data-path="main.py"]')).toHaveAttribute("data-dirty", "false");
  const saved = await api.tool(request, sessionId, "read_file", { path: "main.py" });
  expect(saved.body.details?.content).toBe("print('early')\nprint('late')\n");
  requests.assertNone();
});

// A right-click on the server-rendered tree before React took over opens the tree's menu once it has (the early
// script keeps it), instead of being lost (CI's tree-download spec right-clicked in that window once).
test("a folder right-clicked before hydration gets the tree's menu once React takes over, and the tree's buttons wait for it", async ({ page, context, request }) => {
  const requests = watchExternalRequests(page);
  const release = await ideBeforeHydration(page, context, request, "early-menu", "mkdir -p proj && echo x > proj/a.txt");
  const folder = page.locator('[data-testid="tree-folder"][data-path="proj"]');
  await folder.click({ button: "right" });
  await expect(page.locator("[data-asked-menu]")).toHaveCount(1);
  await expect(page.getByTestId("tree-menu")).toHaveCount(0);
  // A toolbar button would lose its click meanwhile: it is disabled until React has it.
  await expect(page.getByTestId("new-folder")).toBeDisabled();

  release();
  await expect(page.getByTestId("new-folder")).toBeEnabled();
  const menu = page.getByTestId("tree-menu");
  await expect(menu.getByRole("menuitem", { name: "Download as .tar.gz" })).toBeVisible();
  await expect(page.locator("[data-asked-menu]")).toHaveCount(0);
  requests.assertNone();
});

// A folder clicked on the server-rendered tree before React took over folds once it has, and one clicked twice
// stays open: the early script keeps the clicks, and it alone handles them until the tree has React.
test("folders clicked before hydration fold or stay open once React takes over, and fold as ever after", async ({ page, context, request }) => {
  const release = await ideBeforeHydration(page, context, request, "early-fold", "mkdir -p once twice && echo x > once/a.txt && echo y > twice/b.txt");
  const once = page.locator('[data-testid="tree-folder"][data-path="once"]');
  const twice = page.locator('[data-testid="tree-folder"][data-path="twice"]');
  await once.click();
  await twice.click();
  await twice.click();
  await expect(page.locator("[data-asked-toggles]")).toHaveAttribute("data-asked-toggles", JSON.stringify(["once", "twice", "twice"]));

  release();
  await expect(page.locator("[data-tree-hydrated]")).toHaveCount(1);
  await expect(page.locator('[data-testid="tree-file"][data-path="once/a.txt"]')).toHaveCount(0);
  await expect(page.locator('[data-testid="tree-file"][data-path="twice/b.txt"]')).toBeVisible();
  await expect(page.locator("[data-asked-toggles]")).toHaveCount(0);
  // React's own handler now: one click unfolds it.
  await once.click();
  await expect(page.locator('[data-testid="tree-file"][data-path="once/a.txt"]')).toBeVisible();
});

// Next's own scripts wait for the early editor (apps/web/defer-page-scripts.mjs): when the editor's bundle cannot
// load, the early script lets them run all the same, and the IDE hydrates and works without it.
test("without the editor bundle the IDE still hydrates: Next's scripts are not held for an editor that cannot come", async ({ page, context, request }) => {
  await signInContext(context);
  const { id: sessionId } = await api.createSession(request, { name: `no-editor-${Date.now()}`, autonomy: "trusted" });
  await api.tool(request, sessionId, "write_file", { path: "main.py", content: "print('x')\n" });
  await page.route(/\/_next\/static\/monaco\/[^/]+\/editor\.js$/, (route) => route.fulfill({ status: 503, body: "" }));
  await page.goto(`/sessions/${sessionId}`, { waitUntil: "commit" });
  await expect(page.getByTestId("socket-status")).toHaveText("live");
  await expect(page.locator("link[data-after-editor]")).toHaveCount(0);
  await expect(page.locator("[data-monaco-ready]")).toHaveCount(0);
  await expect(page.locator('[data-testid="tree-file"][data-path="main.py"]')).toBeVisible();
  // React's handlers are there: a panel tab switches.
  await page.getByTestId("tab-runs").click();
  await expect(page.getByTestId("tab-runs")).toHaveClass(/active/);
});

// Next's chunks wait for the early editor as inert links (apps/web/defer-page-scripts.mjs) and are fetched only when
// the early script inserts them: fetched with Monaco's files, they took a core from Monaco's parse and evaluation.
// Only what Next itself preloads in the head at low priority (its runtime's first chunk) may go out before.
test("Next's chunks are fetched only once the early editor is ready", async ({ page, context, request }) => {
  await signInContext(context);
  const { id: sessionId } = await api.createSession(request, { name: `held-${Date.now()}`, autonomy: "trusted" });
  const before: string[] = [];
  const after: string[] = [];
  await page.route(/\/_next\/static\/chunks\/[^/]+\.js$/, async (route) => {
    const path = new URL(route.request().url()).pathname;
    ((await page.locator("[data-monaco-ready]").count()) === 0 ? before : after).push(path);
    await route.continue();
  });
  await page.goto(`/sessions/${sessionId}`, { waitUntil: "commit" });
  await expect(page.getByTestId("socket-status")).toHaveText("live");
  const preloaded = await page.locator('head link[rel="preload"][as="script"][fetchpriority="low"]').evaluateAll((links) => links.map((link) => new URL((link as HTMLLinkElement).href).pathname));
  expect(before.filter((path) => !preloaded.includes(path))).toEqual([]);
  expect(after.length).toBeGreaterThan(0);
});
