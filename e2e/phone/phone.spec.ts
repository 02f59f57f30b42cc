import { expect, test, type Page } from "@playwright/test";
import { ADMIN_TOKEN, api, screenshot, signInContext, waitForRunEnd } from "../ide/support";

// An operator away from a desk: a phone's viewport (iPhone 12-14 size), touch, no mouse hover.
test.use({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });
test.afterEach(async ({ request }) => api.cleanup(request));

/** Nothing on the page is wider than the screen: what does not fit scrolls inside its own box. */
async function expectNoSidewaysScroll(page: Page, what: string) {
  const widths = await page.evaluate(() => {
    // The innermost elements reaching past the screen's edge, to name what widens the page.
    const wide = [...document.querySelectorAll("body *")]
      .filter((el) => el.getBoundingClientRect().right > 391 && ![...el.children].some((child) => child.getBoundingClientRect().right > 391))
      .filter((el) => {
        // Inside a box that scrolls sideways is allowed: that box keeps it off the page.
        for (let up = el.parentElement; up; up = up.parentElement) if (/auto|scroll|hidden/.test(getComputedStyle(up).overflowX)) return false;
        return true;
      })
      .slice(0, 5)
      .map((el) => `${el.tagName.toLowerCase()}.${[...el.classList].join(".")}[${el.getAttribute("data-testid") ?? ""}] ${Math.round(el.getBoundingClientRect().right)}px`);
    return { scroll: document.scrollingElement!.scrollWidth, client: window.innerWidth, wide };
  });
  expect(widths.scroll, `${what}: document ${widths.scroll} px wide on a ${widths.client} px screen: ${widths.wide.join(", ")}`).toBeLessThanOrEqual(390);
  // A table fits by scrolling inside its card, not by breaking its headers letter by letter.
  const squeezed = await page.locator(".table th").evaluateAll((cells) =>
    cells.filter((cell) => cell.textContent!.trim() && cell.getBoundingClientRect().height > 40).map((cell) => cell.textContent),
  );
  expect(squeezed, `${what}: table headers broken over lines`).toEqual([]);
}

test("phone: sessions, runs, a run page, a share page and approvals fit 390 px, and the operator approves a parked call", async ({ page, context, request, browser }) => {
  const marker = `phone-${Date.now()}`;
  const { id: sessionId } = await api.createSession(request, { name: marker, autonomy: "trusted" });
  // A run with a long unbroken line, the kind that widens a page that does not wrap or scroll it.
  const ran = await api.tool(request, sessionId, "bash", { action: "exec", command: `echo ${marker}-${"x".repeat(400)}; printf '\\033[32mgreen\\033[0m\\n'` });
  expect(ran.body.ok, ran.body.output).toBe(true);
  const runId = ran.body.runId as string;
  const run = await waitForRunEnd(request, runId);
  const shared = await request.post(`/api/receipts/${run.run.receiptId}/share`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
  expect(shared.status()).toBe(201);
  const { token } = (await shared.json()) as { token: string };

  await signInContext(context);
  for (const [route, ready, name] of [
    ["/", "sessions-table", "phone-sessions"],
    ["/runs", "runs-table", "phone-runs"],
    [`/runs/${runId}`, "receipt-verification", "phone-run"],
    ["/settings", "users-table", "phone-settings"],
  ] as const) {
    await page.goto(route);
    await expect(page.getByTestId(ready)).toBeVisible();
    await expectNoSidewaysScroll(page, route);
    // The header's links are all reachable (they scroll inside the nav when they do not fit).
    await expect(page.getByTestId("nav-approvals")).toBeVisible();
    await screenshot(page, name);
  }

  // The share page, for a teammate with no sign-in.
  const teammate = await browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });
  try {
    const sharePage = await teammate.newPage();
    await sharePage.goto(`/share/${token}`);
    await expect(sharePage.getByTestId("receipt-verification")).toHaveAttribute("data-valid", "true");
    await expectNoSidewaysScroll(sharePage, "/share/:token");
    await screenshot(sharePage, "phone-share");
  } finally {
    await teammate.close();
  }

  // The IDE says it needs a larger screen, and links to what works here.
  await page.goto(`/sessions/${sessionId}`);
  const notice = page.getByTestId("ide-small-screen");
  await expect(notice).toBeVisible();
  await expect(notice).toContainText("The IDE needs a larger screen (at least 768 px wide)");
  await expect(page.getByTestId("ide")).toBeHidden();
  await expectNoSidewaysScroll(page, "/sessions/:id");
  await screenshot(page, "phone-ide-notice");

  // A call that asks at default autonomy parks; the operator approves it from the phone.
  await notice.getByTestId("small-screen-approvals").tap();
  await expect(page).toHaveURL(/\/approvals$/);
  await expect(page.getByTestId("socket-status")).toHaveText("live");
  const { id: parkedSession } = await api.createSession(request, { name: `${marker}-parked`, autonomy: "default" });
  const waiting = api.tool(request, parkedSession, "bash", { action: "exec", command: `$(echo echo) ${marker}-approved ${"y".repeat(300)}` }, { wait: 120_000, timeout: 150_000 });
  const card = page.getByTestId("pending-approval").filter({ hasText: `${marker}-approved` });
  await expect(card).toBeVisible({ timeout: 20_000 });
  await expectNoSidewaysScroll(page, "/approvals");
  const approve = card.getByTestId("approve");
  const deny = card.getByTestId("deny");
  for (const button of [approve, deny]) {
    await button.scrollIntoViewIfNeeded();
    const box = (await button.boundingBox())!;
    // A thumb's target: at least 44 px high (Apple's and WCAG's guidance), and inside the screen.
    expect(box.height).toBeGreaterThanOrEqual(44);
    expect(box.x).toBeGreaterThanOrEqual(0);
    expect(box.x + box.width).toBeLessThanOrEqual(390);
  }
  await screenshot(page, "phone-approval-pending");
  await approve.tap();
  await expect(page.getByTestId("pending-approval").filter({ hasText: `${marker}-approved` })).toHaveCount(0);
  const result = await waiting;
  expect(result.status).toBe(200);
  expect(result.body.ok, result.body.output).toBe(true);
  expect(result.body.output).toContain(`${marker}-approved`);
  await expectNoSidewaysScroll(page, "/approvals after the decision");
  await screenshot(page, "phone-approval-history");
});
