import { expect, test } from "@playwright/test";
import { api, screenshot, signInWithUi, terminalText, typeInTerminal, watchExternalRequests } from "./support";

test.afterEach(async ({ request }) => api.cleanup(request));

test.use({ viewport: { width: 1440, height: 1000 } });

// No indented lines: Monaco's auto-indent would re-indent typed continuation lines.
const SCRIPT = ["import time", "for i in range(6): print(f'tick {i}', flush=True); time.sleep(0.5)", "print('all done')", ""].join("\n");

test("developer: create a session, write main.py, save, run with live output, reload and still see it", async ({ page, request }) => {
  const requests = watchExternalRequests(page);
  await signInWithUi(page);

  // A trusted session: scripts run without an operator (approvals have their own spec).
  await page.getByTestId("session-name").fill(`dev-${Date.now()}`);
  await page.getByTestId("session-autonomy").selectOption("trusted");
  await page.getByTestId("create-session").click();
  await page.waitForURL(/\/sessions\/[^/]+$/);
  const sessionId = page.url().split("/").pop() ?? "";
  api.track(sessionId);
  await expect(page.getByTestId("session-status")).toBeVisible();
  await expect(page.getByTestId("files-empty")).toBeVisible();

  // A new file appears in the tree and opens in Monaco (bundled: no CDN request, see the end).
  await page.getByTestId("new-file").click();
  await page.getByTestId("new-file-input").fill("main.py");
  await page.getByTestId("new-file-input").press("Enter");
  await expect(page.locator('[data-testid="tree-file"][data-path="main.py"]')).toBeVisible();
  const editor = page.getByTestId("editor").locator(".monaco-editor");
  await expect(editor).toBeVisible();
  await expect(page.locator("[data-monaco-ready]")).toHaveCount(1);
  await expect(page.getByTestId("editor").locator(".monaco-editor .view-lines")).toBeVisible();

  await editor.click();
  await page.keyboard.insertText(SCRIPT);
  await expect(page.locator('[data-testid="editor-tab"][data-path="main.py"]')).toHaveAttribute("data-dirty", "true");
  await expect(page.getByTestId("tab-dirty")).toBeVisible();
  await screenshot(page, "ide-dirty");

  await page.keyboard.press("ControlOrMeta+s");
  await expect(page.locator('[data-testid="editor-tab"][data-path="main.py"]')).toHaveAttribute("data-dirty", "false");
  const saved = await api.tool(request, sessionId, "read_file", { path: "main.py" });
  expect(saved.body.details?.content).toBe(SCRIPT);

  // Run: the first lines show while the script is still running.
  await page.getByTestId("run").click();
  const output = page.getByTestId("run-output");
  await expect(output).toContainText("tick 0");
  await expect(page.getByTestId("run-status")).toHaveAttribute("data-value", "running");
  await screenshot(page, "ide-run-streaming");
  await expect(output).toContainText("all done", { timeout: 30_000 });
  await expect(page.getByTestId("run-outcome")).toHaveAttribute("data-value", "succeeded");
  await screenshot(page, "ide-run-done");

  // Reload: the run's output is fetched again, whole and once.
  await page.reload();
  await expect(page.getByTestId("run-output")).toContainText("all done");
  const text = await page.getByTestId("run-output").innerText();
  expect(text.match(/tick 3/g)).toHaveLength(1);
  await expect(page.getByTestId("run-outcome")).toHaveAttribute("data-value", "succeeded");
  await screenshot(page, "ide-run-after-reload");

  // The session's runs list has it.
  await page.getByTestId("tab-runs").click();
  await expect(page.getByTestId("session-run-row").first()).toContainText("run_script");
  requests.assertNone();
});

test("developer: a background server started in the terminal keeps streaming after a reload", async ({ page, request }) => {
  const requests = watchExternalRequests(page);
  await signInWithUi(page);
  const { id: sessionId } = await api.createSession(request, { name: `term-${Date.now()}`, autonomy: "trusted" });
  await page.goto(`/sessions/${sessionId}`);
  await page.getByTestId("tab-terminal").click();
  // A real shell on a PTY: its prompt, in /workspace.
  await expect.poll(() => terminalText(page), { timeout: 30_000 }).toMatch(/:\/workspace\$ /);

  await typeInTerminal(page, "echo hello-from-$((6*7))");
  await expect.poll(() => terminalText(page)).toMatch(/^hello-from-42\s*$/m);

  // A job of the shell: its output streams into the terminal as the server writes it.
  await typeInTerminal(page, "python3 -u -m http.server 8765 --bind 127.0.0.1 &");
  await expect.poll(() => terminalText(page), { timeout: 30_000 }).toContain("Serving HTTP on 127.0.0.1 port 8765");
  await typeInTerminal(page, "jobs");
  await expect.poll(() => terminalText(page)).toMatch(/\[1\]\+\s+Running\s+python3 -u -m http.server/);

  const hit = (path: string) => typeInTerminal(page, `python3 -c "import urllib.request as u; u.urlopen('http://127.0.0.1:8765/${path}')" 2>/dev/null; echo fetched-${path}`);
  await hit("first-visit");
  await expect.poll(() => terminalText(page)).toContain("GET /first-visit HTTP/1.1");
  await screenshot(page, "terminal-before-reload");

  await page.reload();
  await page.getByTestId("tab-terminal").click();
  // What was shown is back, exactly once (the offset and the screen are saved together)...
  await expect.poll(() => terminalText(page)).toContain("GET /first-visit HTTP/1.1");
  expect((await terminalText(page)).match(/GET \/first-visit HTTP/g)).toHaveLength(1);
  // ...and the job's new output keeps arriving: the terminal is reattached, not replayed.
  await hit("after-reload");
  await expect.poll(() => terminalText(page)).toContain("GET /after-reload HTTP/1.1");
  expect((await terminalText(page)).match(/Serving HTTP on/g)).toHaveLength(1);
  await screenshot(page, "terminal-after-reload");
  requests.assertNone();
});
