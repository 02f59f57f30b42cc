import { execFileSync } from "node:child_process";
import crypto from "node:crypto";
import path from "node:path";

const ROOT = path.resolve(import.meta.dirname, "../../../..");

/**
 * `npm test` runs the Docker suite twice: on SQLite, and on PostgreSQL with `BERTH_TEST_POSTGRES_URL` naming a
 * server (scripts/lib/test-postgres.mjs starts one). Each test runner gets a database of its own either way.
 */
const POSTGRES_ADMIN_URL = process.env["BERTH_TEST_POSTGRES_URL"] ?? "";

export interface TestDatabase {
  /** `DATABASE_URL` for the runner: empty for the SQLite file in its data dir. */
  url: string;
  kind: "sqlite" | "postgresql";
  drop(): void;
}

/** Applies the real migrations to a fresh SQLite file in `dataDir`. */
export function migrateSqlite(dataDir: string): void {
  execFileSync("npx", ["prisma", "migrate", "deploy"], {
    cwd: ROOT,
    env: { ...process.env, BERTH_DATA_DIR: dataDir, DATABASE_URL: "" },
    stdio: "pipe",
  });
}

/** A fresh database with every migration applied: SQLite in `dataDir`, or a new PostgreSQL database. */
export function createTestDatabase(dataDir: string): TestDatabase {
  if (!POSTGRES_ADMIN_URL) {
    migrateSqlite(dataDir);
    return { url: "", kind: "sqlite", drop: () => undefined };
  }
  const name = `berth_t_${process.pid}_${crypto.randomBytes(4).toString("hex")}`;
  const psql = (sql: string) => execFileSync("psql", [POSTGRES_ADMIN_URL, "-XAtqc", sql], { stdio: "pipe" });
  psql(`CREATE DATABASE "${name}"`);
  const url = new URL(POSTGRES_ADMIN_URL);
  url.pathname = `/${name}`;
  // The same migration runner `npm start` uses (scripts/lib/migrate-postgres.mjs), in a child: it is async.
  execFileSync(
    process.execPath,
    ["--input-type=module", "-e", "const [root, url] = process.argv.slice(1); const m = await import(`${root}/scripts/lib/migrate-postgres.mjs`); await m.migratePostgres(root, url);", ROOT, url.href],
    { stdio: "pipe" },
  );
  return {
    url: url.href,
    kind: "postgresql",
    drop: () => {
      psql(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    },
  };
}
