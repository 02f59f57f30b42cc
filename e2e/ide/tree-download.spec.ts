import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { expect, test, type Page } from "@playwright/test";
import { api, screenshot, signInContext } from "./support";

test.afterEach(async ({ request }) => api.cleanup(request));
test.use({ viewport: { width: 1440, height: 1000 } });

const folder = (page: Page, p: string) => page.locator(`[data-path="${p}"][data-testid="tree-folder"]`);

test("a folder downloads from the tree as .tar.gz and as .zip, and both unpack to the files the API reads", async ({ page, context, request }) => {
  await signInContext(context);
  const { id: sessionId } = await api.createSession(request, { name: `download-${Date.now()}`, autonomy: "default" });
  const made = await api.tool(request, sessionId, "bash", {
    command: "mkdir -p proj/src/deep && printf 'hello\\n' > proj/src/deep/note.txt && head -c 200000 /dev/urandom > proj/blob.bin && sha256sum proj/blob.bin proj/src/deep/note.txt",
  });
  expect(made.body.ok, made.body.output).toBe(true);
  // What the workspace holds, by the API: the archives must unpack to these bytes.
  const sums = String(made.body.details?.stdout);

  await page.goto(`/sessions/${sessionId}`);
  await expect(folder(page, "proj")).toBeVisible();
  const out = fs.mkdtempSync(path.join(os.tmpdir(), "berth-e2e-download-"));

  for (const format of ["tar.gz", "zip"] as const) {
    await folder(page, "proj").click({ button: "right" });
    const menu = page.getByTestId("tree-menu");
    await expect(menu.getByRole("menuitem", { name: `Download as .${format}` })).toBeVisible();
    if (format === "zip") await screenshot(page, "tree-download-menu");
    const downloading = page.waitForEvent("download");
    await menu.getByRole("menuitem", { name: `Download as .${format}` }).click();
    const download = await downloading;
    expect(download.suggestedFilename()).toBe(`proj.${format}`);
    const archive = path.join(out, `proj.${format}`);
    await download.saveAs(archive);
    const into = path.join(out, format);
    fs.mkdirSync(into);
    if (format === "zip") {
      expect(execFileSync("unzip", ["-t", archive], { encoding: "utf8" })).toMatch(/No errors detected/);
      execFileSync("unzip", ["-q", archive, "-d", into]);
    } else execFileSync("tar", ["-xzf", archive, "-C", into]);
    expect(execFileSync("sha256sum", ["proj/blob.bin", "proj/src/deep/note.txt"], { cwd: into, encoding: "utf8" })).toBe(sums);
  }
  fs.rmSync(out, { recursive: true, force: true });
});
