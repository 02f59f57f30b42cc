import { defineConfig } from "vitest/config";

// Three projects: `unit` is the fast loop (no Docker), `docker` needs a running engine and the sandbox image,
// `cluster` runs several runners against one PostgreSQL and one Redis (BERTH_TEST_POSTGRES_URL, BERTH_TEST_REDIS_URL).
export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: "unit",
          include: ["packages/*/src/**/*.test.ts", "apps/runner/src/**/*.test.ts", "apps/web/*.test.mjs", "scripts/*.test.mjs", "apps/web/lib/**/*.test.ts"],
          exclude: ["**/*.docker.test.ts", "**/*.cluster.test.ts", "**/node_modules/**"],
          testTimeout: 20_000,
          // CI retries a failed test once; `npm test`'s summary names every test that passed only on a retry.
          retry: process.env.CI ? 1 : 0,
        },
      },
      {
        test: {
          name: "docker",
          include: ["packages/*/src/**/*.docker.test.ts", "apps/runner/src/**/*.docker.test.ts"],
          testTimeout: 120_000,
          hookTimeout: 180_000,
          fileParallelism: false,
          retry: process.env.CI ? 1 : 0,
        },
      },
      {
        test: {
          name: "cluster",
          include: ["apps/runner/src/**/*.cluster.test.ts"],
          testTimeout: 120_000,
          hookTimeout: 180_000,
          fileParallelism: false,
          retry: process.env.CI ? 1 : 0,
        },
      },
    ],
  },
});
