import { expect, test } from "@playwright/test";
import { startHttpTestMcpServer } from "../../packages/mcp/src/testing/test-mcp-server";
import { api, screenshot, signInContext, signInWithUi, watchExternalRequests } from "../ide/support";

test.afterEach(async ({ request }) => api.cleanup(request));

test.use({ viewport: { width: 1440, height: 1000 } });

test("operator: a policy rule's examples are checked when it is saved, the rule applies to calls, and it can be deleted", async ({ page, context, request }) => {
  const requests = watchExternalRequests(page);
  page.on("dialog", (dialog) => void dialog.accept());
  await signInContext(context);
  const prefix = `make deploy-${Date.now()}`;
  await page.goto("/settings");
  await page.getByTestId("nav-settings").waitFor();
  await expect(page.getByTestId("nav-settings")).toHaveClass(/active/);

  await page.getByTestId("rule-effect").selectOption("deny");
  await page.getByTestId("rule-tool").fill("bash");
  await page.getByTestId("rule-prefix").fill(prefix);
  await page.getByTestId("rule-must-match").fill("make build");
  await page.getByTestId("save-policy-rule").click();
  // The runner names the example that does not fit; nothing is saved.
  await expect(page.getByTestId("policy-rule-error")).toContainText('mustMatch example "make build" does not match');
  await expect(page.getByTestId("policy-rule-row").filter({ hasText: prefix })).toHaveCount(0);

  await page.getByTestId("rule-must-match").fill(`${prefix} --prod`);
  await page.getByTestId("rule-must-not-match").fill(`${prefix}x`);
  await page.getByTestId("save-policy-rule").click();
  const row = page.getByTestId("policy-rule-row").filter({ hasText: prefix });
  await expect(row).toContainText("deny");
  await expect(row).toContainText(`${prefix} --prod`);
  await expect(page.getByTestId("policy-rule-error")).toHaveCount(0);
  await screenshot(page, "settings-policy-rule");

  // Even at yolo autonomy the rule denies the command, inside a compound one too.
  const { id: sessionId } = await api.createSession(request, { name: `policy-${Date.now()}`, autonomy: "yolo" });
  const denied = await api.tool(request, sessionId, "bash", { action: "exec", command: `echo hi && ${prefix} --prod` });
  expect(denied.body).toMatchObject({ ok: false, error: { code: "denied" } });

  await row.getByTestId("delete-policy-rule").click();
  await expect(row).toHaveCount(0);
  const allowed = await api.tool(request, sessionId, "bash", { action: "exec", command: `echo ${prefix}` });
  expect(allowed.body.ok).toBe(true);
  requests.assertNone();
});

test("operator: a rule targets people, agents or everyone; a shell rule matches every command only when 'every command' is ticked", async ({ page, context, request }) => {
  const requests = watchExternalRequests(page);
  page.on("dialog", (dialog) => void dialog.accept());
  await signInContext(context);
  await page.goto("/settings");
  await page.getByTestId("rule-effect").selectOption("ask");
  await page.getByTestId("rule-tool").fill("run_script");
  await page.getByTestId("rule-target").selectOption("people");
  // An empty prefix is not "every command": refused, naming the box to tick.
  await page.getByTestId("rule-must-match").fill("python3 train.py");
  await page.getByTestId("save-policy-rule").click();
  await expect(page.getByTestId("policy-rule-error")).toContainText("matchAll: true");
  await page.getByTestId("rule-prefix").fill("   ");
  await page.getByTestId("save-policy-rule").click();
  await expect(page.getByTestId("policy-rule-error")).toContainText('commandPrefix: must name a command (got "   ")');
  await page.getByTestId("rule-match-all").check();
  await expect(page.getByTestId("rule-prefix")).toBeDisabled();
  await page.getByTestId("save-policy-rule").click();
  const row = page.getByTestId("policy-rule-row").filter({ hasText: "run_script" }).filter({ hasText: "every command" });
  await expect(row).toBeVisible();
  await expect(row.getByTestId("policy-rule-target")).toHaveText("people");
  await screenshot(page, "settings-policy-rule-for-people");

  // It governs people only: a script's call at trusted still runs without asking.
  const { id: sessionId } = await api.createSession(request, { name: `target-${Date.now()}`, autonomy: "trusted" });
  await api.tool(request, sessionId, "write_file", { path: "t.py", content: "print('ran')\n" });
  const script = await api.tool(request, sessionId, "run_script", { interpreter: "python3", script: "t.py" });
  expect(script.status).toBe(200);
  expect(script.body.ok).toBe(true);
  await row.getByTestId("delete-policy-rule").click();
  await expect(row).toHaveCount(0);
  requests.assertNone();
});

test("operator: a function tool is trusted by its script's sha256: a bad hash is refused naming the field, a good one shows on the rule", async ({ page, context }) => {
  const requests = watchExternalRequests(page);
  page.on("dialog", (dialog) => void dialog.accept());
  await signInContext(context);
  await page.goto("/settings");
  const tool = `count_lines_${Date.now()}`;
  await page.getByTestId("rule-effect").selectOption("allow");
  await page.getByTestId("rule-tool").fill(tool);
  await page.getByTestId("rule-script-sha256").fill("not-a-hash");
  await page.getByTestId("save-policy-rule").click();
  await expect(page.getByTestId("policy-rule-error")).toContainText("scriptSha256: must be a sha256 in lowercase hex");
  const sha = "0123456789abcdef".repeat(4);
  await page.getByTestId("rule-script-sha256").fill(sha);
  await page.getByTestId("save-policy-rule").click();
  const row = page.getByTestId("policy-rule-row").filter({ hasText: tool });
  await expect(row.getByTestId("policy-rule-script")).toHaveText(`script ${sha.slice(0, 12)}…`);
  await expect(row.getByTestId("policy-rule-script")).toHaveAttribute("title", sha);
  await screenshot(page, "settings-policy-rule-function-tool");
  await row.getByTestId("delete-policy-rule").click();
  await expect(row).toHaveCount(0);
  requests.assertNone();
});

test("admin: add a user, issue a token shown once, the user signs in with it, revoking it refuses it", async ({ page, context, browser }) => {
  const requests = watchExternalRequests(page);
  page.on("dialog", (dialog) => void dialog.accept());
  await signInContext(context);
  const name = `alice-${Date.now()}`;
  await page.goto("/settings");
  await page.getByTestId("user-name").fill(name);
  await page.getByTestId("user-role").selectOption("developer");
  await page.getByTestId("add-user").click();
  await expect(page.locator(`[data-testid="user-row"][data-user="${name}"]`)).toContainText("developer");

  // The new user is preselected for a token.
  await expect(page.getByTestId("token-user").locator("option:checked")).toHaveText(`${name} (developer)`);
  await page.getByTestId("token-name").fill("laptop");
  await page.getByTestId("issue-token").click();
  const token = await page.getByTestId("issued-token-value").inputValue();
  expect(token.length).toBeGreaterThanOrEqual(32);
  const tokenRow = page.locator(`[data-testid="token-row"][data-user="${name}"]`);
  await expect(tokenRow).toContainText("laptop");
  await expect(tokenRow).toContainText("active");
  await expect(tokenRow).toContainText("never");
  await screenshot(page, "settings-token-issued");
  // Shown once: a reload lists the token but never its value.
  await page.reload();
  await expect(tokenRow).toContainText("laptop");
  expect(await page.content()).not.toContain(token);

  // The user signs in with it in a browser of their own: a developer sees no users and tokens.
  const theirs = await browser.newContext();
  const theirPage = await theirs.newPage();
  await signInWithUi(theirPage, token, "/settings");
  await expect(theirPage.getByTestId("current-user")).toContainText(name);
  await expect(theirPage.getByTestId("policy-rules")).toBeVisible();
  await expect(theirPage.getByTestId("policy-rule-form")).toHaveCount(0);
  await expect(theirPage.getByTestId("users-and-tokens")).toHaveCount(0);
  await page.reload();
  await expect(tokenRow).not.toContainText("never");

  await tokenRow.getByTestId("revoke-token").click();
  await expect(tokenRow).toContainText("revoked");
  await theirPage.reload();
  await expect(theirPage).toHaveURL(/\/login/);
  await theirs.close();
  requests.assertNone();
});

test("operator: register an MCP server, see its tools pinned, accept a changed schema; a user's server on a private address is refused", async ({ page, context, request }) => {
  const requests = watchExternalRequests(page);
  page.on("dialog", (dialog) => void dialog.accept());
  const upstream = await startHttpTestMcpServer({ label: "e2e" });
  try {
    await signInContext(context);
    const name = `docs-${Date.now()}`;
    await page.goto("/settings");

    // A server of one's own on an internal address: the runner refuses it and says why.
    await page.getByTestId("mcp-name").fill(name);
    await page.getByTestId("mcp-url").fill(upstream.url);
    await page.getByTestId("register-mcp-server").click();
    await expect(page.getByTestId("mcp-server-error")).toContainText("127.0.0.1 is not a public address");

    // For everyone, by an operator, it is allowed; the header's value never comes back.
    await page.getByTestId("mcp-scope").selectOption("global");
    await page.getByTestId("mcp-headers").fill("X-Api-Key: e2e-secret-value");
    await page.getByTestId("register-mcp-server").click();
    const row = page.locator(`[data-testid="mcp-server-row"][data-name="${name}"]`);
    await expect(row).toContainText("everyone");
    await expect(row).toContainText("headers: X-Api-Key");
    expect(await page.content()).not.toContain("e2e-secret-value");

    await row.getByTestId("mcp-server-tools").click();
    await expect(page.getByTestId("mcp-pins-empty")).toBeVisible();

    // A session looks for the tools (pinning them), then the upstream changes echo's schema.
    const { id: sessionId } = await api.createSession(request, { name: `mcp-${Date.now()}`, autonomy: "trusted" });
    const flipped = await api.tool(request, sessionId, "gateway", { op: "call", capability: "flip_schema", args: {} });
    expect(flipped.body).toMatchObject({ ok: true, output: "variant 2" });
    await expect
      .poll(async () => {
        // Hiding and showing the tools lists them again.
        await row.getByTestId("mcp-server-tools").click();
        await row.getByTestId("mcp-server-tools").click();
        const badge = page.locator('[data-testid="mcp-pin-row"][data-tool="echo"] [data-value]');
        return (await badge.count()) ? badge.getAttribute("data-value") : null;
      })
      .toBe("held");
    await screenshot(page, "settings-mcp-held");
    await page.locator('[data-testid="mcp-pin-row"][data-tool="echo"]').getByTestId("mcp-accept").click();
    await expect(page.locator('[data-testid="mcp-pin-row"][data-tool="echo"] [data-value]')).toHaveAttribute("data-value", "accepted");
    const after = await api.tool(request, sessionId, "echo", { text: "accepted", upper: true });
    expect(after.body).toMatchObject({ ok: true, output: "ACCEPTED" });

    await row.getByTestId("mcp-server-remove").click();
    await expect(row).toHaveCount(0);
    requests.assertNone();
  } finally {
    await upstream.stop();
  }
});
