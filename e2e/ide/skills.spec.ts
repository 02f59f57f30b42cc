import { expect, test } from "@playwright/test";
import { screenshot, signInContext, watchExternalRequests } from "./support";

test("skills: create one with allowed tools and a markdown body, edit it, and see it listed", async ({ page, context }) => {
  const requests = watchExternalRequests(page);
  await signInContext(context);
  const name = `review-${Date.now()}`;
  await page.goto("/skills");
  await page.getByTestId("new-skill").click();
  await page.waitForURL(/\/skills\/new$/);
  await page.getByTestId("skill-name").fill(name);
  await page.getByTestId("skill-description").fill("Review a change before it ships");
  await page.getByTestId("skill-tools").getByText("read_file", { exact: true }).click();
  await page.getByTestId("skill-tools").getByText("grep", { exact: true }).click();
  await expect(page.locator("[data-monaco-ready]")).toHaveCount(1);
  await page.getByTestId("skill-body").locator(".monaco-editor").click();
  await page.keyboard.press("ControlOrMeta+a");
  await page.keyboard.insertText("# Review\n\nRead the diff, grep for TODOs.\n");
  await page.getByTestId("save-skill").click();
  await page.waitForURL(new RegExp(`/skills/${name}$`));

  await page.reload();
  await expect(page.getByTestId("skill-description")).toHaveValue("Review a change before it ships");
  await expect(page.getByTestId("skill-body").locator(".view-lines")).toContainText("grep for TODOs");
  await expect(page.getByTestId("skill-tools").locator(".chip.on")).toHaveCount(2);

  await page.getByTestId("skill-description").fill("Review a change before it ships (edited)");
  await expect(page.getByTestId("skill-dirty")).toBeVisible();
  await page.keyboard.press("ControlOrMeta+s");
  await expect(page.getByTestId("skill-dirty")).toHaveCount(0);
  await screenshot(page, "skill-editor");

  await page.goto("/skills");
  await expect(page.getByTestId("skill-row").filter({ hasText: name })).toContainText("(edited)");
  requests.assertNone();
});
