import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { expect, test } from "@playwright/test";
import { ADMIN_TOKEN, api, screenshot, waitForRunEnd, watchExternalRequests } from "../ide/support";

test.afterEach(async ({ request }) => api.cleanup(request));

test("share page: verifies in a fresh browser with no token, and the downloaded verifier verifies with plain node", async ({
  request,
  browser,
}) => {
  const { id: sessionId } = await api.createSession(request, { name: `verify-${Date.now()}`, autonomy: "trusted" });
  await api.tool(request, sessionId, "write_file", {
    path: "report.py",
    content: "import sys\nprint('\\x1b[36mcyan result\\x1b[0m')\nprint('note', file=sys.stderr)\n",
  });
  const ran = await api.tool(request, sessionId, "run_script", { interpreter: "python3", script: "report.py" });
  expect(ran.body.ok, ran.body.output).toBe(true);
  const record = await waitForRunEnd(request, ran.body.runId as string);
  const receiptId = record.run.receiptId as string;
  const shared = await request.post(`/api/receipts/${receiptId}/share`, {
    headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
  });
  expect(shared.ok(), await shared.text()).toBe(true);
  const { token } = (await shared.json()) as { token: string };

  const teammate = await browser.newContext({ acceptDownloads: true });
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "berth-verify-"));
  try {
    expect(await teammate.cookies()).toEqual([]);
    const page = await teammate.newPage();
    const requests = watchExternalRequests(page);
    // The verdict must come from this browser, not from asking the server.
    const verifyCalls: string[] = [];
    page.on("request", (req) => {
      if (req.url().includes("/api/receipts/verify")) verifyCalls.push(req.url());
    });
    await page.goto(`/share/${encodeURIComponent(token)}`);
    await expect(page.getByTestId("receipt-verification")).toHaveAttribute("data-valid", "true");
    await expect(page.getByTestId("receipt-checked-where")).toHaveAttribute("data-where", "browser");
    await expect(page.getByTestId("receipt-meaning")).toContainText("does not prove");
    await expect(page.getByTestId("shared-log")).toContainText("cyan result");
    await expect(
      page.locator('[data-testid="shared-log"] [data-testid="log-line"][data-stream="stderr"]'),
    ).toContainText("note");
    expect(await page.locator("body").innerText()).not.toContain("npx berth-verify");
    expect(verifyCalls).toEqual([]);
    await screenshot(page, "share-verified-in-browser");

    // The three downloads, into a folder outside the repo; then plain node, no node_modules anywhere near.
    const save = async (testId: string, name: string) => {
      const [download] = await Promise.all([page.waitForEvent("download"), page.getByTestId(testId).click()]);
      const file = path.join(dir, name);
      await download.saveAs(file);
      return file;
    };
    await save("download-verifier", "berth-verify.mjs");
    const receiptFile = await save("download-receipt-json", "receipt.json");
    await save("download-key", "key.pem");
    expect(fs.existsSync(path.join(dir, "node_modules"))).toBe(false);

    const valid = spawnSync(process.execPath, ["berth-verify.mjs", "receipt.json", "--key", "key.pem"], {
      cwd: dir,
      encoding: "utf8",
      env: { PATH: process.env.PATH ?? "" },
    });
    expect(valid.stdout.trim(), valid.stderr).toBe("valid");
    expect(valid.status).toBe(0);

    // An altered receipt is refused, with the reason.
    const altered = JSON.parse(fs.readFileSync(receiptFile, "utf8")) as { body: { exitCode: number | null } };
    altered.body.exitCode = 7;
    fs.writeFileSync(path.join(dir, "altered.json"), JSON.stringify(altered));
    const invalid = spawnSync(process.execPath, ["berth-verify.mjs", "altered.json", "--key", "key.pem"], {
      cwd: dir,
      encoding: "utf8",
      env: { PATH: process.env.PATH ?? "" },
    });
    expect(invalid.status).toBe(1);
    expect(invalid.stdout + invalid.stderr).toContain("digest mismatch");
    requests.assertNone();
  } finally {
    await teammate.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
