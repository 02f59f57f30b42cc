import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { startTestRunner, type TestRunner } from "./runner-test-kit";
import { createTestDatabase, type TestDatabase } from "./test-database";

/** The cluster tests' Redis (scripts/lib/test-redis.mjs starts it; `npm test` passes its URL). */
const REDIS_URL = process.env["BERTH_TEST_REDIS_URL"] ?? "";

export interface TwoRunners {
  /** Started first; each is a full runner-test-kit runner (api, tool, createSession, socket, restart, close). */
  a: TestRunner;
  b: TestRunner;
  /** The PostgreSQL database both use (a test that edits rows behind the API opens it). */
  databaseUrl: string;
  redisUrl: string;
  /** Closes both runners (each deletes the sessions it created), then drops the database. */
  close(): Promise<void>;
}

/**
 * Two real runners in-process, as a deployment runs them (docs/scale-out.md): one PostgreSQL database, one
 * Redis, the same admin token, each with its own BERTH_RUNNER_ID, data dir and port. For `*.cluster.test.ts`
 * (`npx vitest run --project cluster <file>` with BERTH_TEST_POSTGRES_URL and BERTH_TEST_REDIS_URL set).
 */
export async function startTwoRunners(
  opts: {
    /** BERTH_* settings for both runners (e.g. BERTH_SESSION_LEASE_MS). */
    env?: Record<string, string>;
    /** Settings for one runner only, over `env`. */
    envA?: Record<string, string>;
    envB?: Record<string, string>;
    runnerIds?: { a: string; b: string };
  } = {},
): Promise<TwoRunners> {
  if (!REDIS_URL || !process.env["BERTH_TEST_POSTGRES_URL"]) {
    throw new Error("the cluster tests need BERTH_TEST_POSTGRES_URL and BERTH_TEST_REDIS_URL (npm test's setup starts both servers)");
  }
  // The directory only matters for SQLite; with BERTH_TEST_POSTGRES_URL this makes a PostgreSQL database.
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), "berth-cluster-test-"));
  const database: TestDatabase = createTestDatabase(scratch);
  fs.rmSync(scratch, { recursive: true, force: true });
  const suffix = `${process.pid}-${Math.floor(Math.random() * 1e6)}`;
  const ids = opts.runnerIds ?? { a: `a-${suffix}`, b: `b-${suffix}` };
  const started: TestRunner[] = [];
  // Both sign what they forward to a session's owner with it (cluster/forward-marker.ts): a deployment's shared secret.
  const clusterSecret = crypto.randomBytes(32).toString("hex");
  const closeAll = async () => {
    for (const runner of [...started].reverse()) await runner.close().catch(() => undefined);
    database.drop();
  };
  try {
    // One after the other: the second runner starts against the rows the first one wrote (the admin token).
    for (const [id, own] of [[ids.a, opts.envA], [ids.b, opts.envB]] as const) {
      started.push(await startTestRunner({ runnerId: id, database, env: { BERTH_REDIS_URL: REDIS_URL, BERTH_CLUSTER_SECRET: clusterSecret, ...opts.env, ...own } }));
    }
  } catch (error) {
    await closeAll();
    throw error;
  }
  const [a, b] = started as [TestRunner, TestRunner];
  return { a, b, databaseUrl: database.url, redisUrl: REDIS_URL, close: closeAll };
}
