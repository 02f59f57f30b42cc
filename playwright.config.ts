import { defineConfig } from "@playwright/test";
import { CHROMIUM_PATH, chromiumArgs } from "./scripts/lib/chromium.mjs";

// e2e runs its own runner + web app on spare ports with its own data dir, so a developer's
// `npm start` can keep running. Browsers cannot be downloaded here: Debian's chromium is used.
const runnerPort = 4100;
const webPort = 3100;
/** Where the e2e runner and web app listen (a spec that speaks raw HTTP or opens a page on another port needs them). */
export const E2E_PORTS = { runner: runnerPort, web: webPort } as const;
export const E2E_ADMIN_TOKEN = "e2e-admin-token-0123456789abcdef";

export default defineConfig({
  testDir: "e2e",
  outputDir: "test-results/e2e",
  timeout: 120_000,
  expect: { timeout: 15_000 },
  workers: 1,
  // CI retries a failed spec once; `npm test`'s summary names any that passed only on the retry.
  retries: process.env.CI ? 1 : 0,
  reporter: [
    ["list"],
    ["html", { open: "never", outputFolder: "test-results/e2e-report" }],
    // npm test sets the file; its summary names what failed.
    ...(process.env.PLAYWRIGHT_JSON_OUTPUT_NAME ? [["json"] as ["json"]] : []),
  ],
  use: {
    baseURL: `http://127.0.0.1:${webPort}`,
    screenshot: "on",
    trace: "retain-on-failure",
    launchOptions: {
      executablePath: CHROMIUM_PATH,
      args: chromiumArgs(),
    },
  },
  webServer: {
    command: "node scripts/serve.mjs",
    url: `http://127.0.0.1:${webPort}/healthz`,
    reuseExistingServer: false,
    // SIGTERM lets serve.mjs stop the runner and the web app before it exits.
    gracefulShutdown: { signal: "SIGTERM", timeout: 15_000 },
    timeout: 120_000,
    env: {
      BERTH_RUNNER_PORT: String(runnerPort),
      BERTH_WEB_PORT: String(webPort),
      // npm test runs the suite a second time on PostgreSQL with its own data dir and database.
      BERTH_DATA_DIR: process.env.BERTH_E2E_DATA_DIR ?? ".berth/e2e",
      ...(process.env.BERTH_E2E_DATABASE_URL ? { DATABASE_URL: process.env.BERTH_E2E_DATABASE_URL } : {}),
      // Its own runner id: reconcile on start reaps only this runner's containers, never a dev's npm start.
      BERTH_RUNNER_ID: "e2e",
      BERTH_ADMIN_TOKEN: E2E_ADMIN_TOKEN,
      BERTH_WARM_POOL: "1",
      // A fixed pool of one: an adaptive pool would start containers behind the tests as they create sessions, on
      // the same two cores the browser uses (the pool's own tests cover growing and shrinking).
      BERTH_WARM_POOL_MEMORY: "0",
    },
  },
});
