import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { execFileSync } from "node:child_process";
import { afterAll, beforeAll } from "vitest";
import { createDatabase, sqlitePath, type Database } from "../../create-database";
import { createRepositories, type Repositories } from "../create-repositories";

const ROOT = path.resolve(import.meta.dirname, "../../../../..");

/**
 * A migrated SQLite file, made once per migration set and copied for each test file: `prisma migrate deploy`
 * costs seconds, a copy nothing. The template is moved into place whole, so parallel test files never see half.
 */
function template(): string {
  const migrations = path.join(ROOT, "prisma/migrations");
  const hash = crypto.createHash("sha256");
  for (const entry of fs.readdirSync(migrations, { recursive: true, encoding: "utf8" }).sort()) {
    const file = path.join(migrations, entry);
    if (fs.statSync(file).isFile()) hash.update(entry).update(fs.readFileSync(file));
  }
  const dir = path.join(os.tmpdir(), `berth-db-template-${hash.digest("hex").slice(0, 16)}`);
  if (fs.existsSync(sqlitePath(dir))) return dir;
  const staging = fs.mkdtempSync(path.join(os.tmpdir(), "berth-db-staging-"));
  execFileSync("npx", ["prisma", "migrate", "deploy"], {
    cwd: ROOT,
    env: { ...process.env, BERTH_DATA_DIR: staging, DATABASE_URL: "" },
    stdio: "pipe",
  });
  try {
    fs.renameSync(staging, dir);
  } catch {
    // Another test file moved its template in first: the same migrations, so the same file.
    fs.rmSync(staging, { recursive: true, force: true });
  }
  return dir;
}

/** Repositories over a fresh migrated SQLite file, with the raw client for seeding rows; `close` removes it. */
export async function openTestRepositories(): Promise<{
  repos: Repositories;
  db: Database;
  close: () => Promise<void>;
}> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "berth-repos-"));
  fs.copyFileSync(sqlitePath(template()), sqlitePath(dataDir));
  const db = await createDatabase({ dataDir });
  const repos = createRepositories(db);
  return {
    repos,
    db,
    close: async () => {
      await repos.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/**
 * The usual test file's setup: fresh repositories before its tests (after `seed`), closed after them. The
 * returned object is filled in by beforeAll, so read `t.repos` inside tests, not at import.
 */
export function useTestRepositories(seed: (repos: Repositories) => Promise<void> = async () => undefined): {
  repos: Repositories;
  db: Database;
} {
  const t = {} as { repos: Repositories; db: Database };
  let close = async () => undefined as void;
  beforeAll(async () => {
    const opened = await openTestRepositories();
    Object.assign(t, { repos: opened.repos, db: opened.db });
    close = opened.close;
    await seed(opened.repos);
  }, 60_000);
  afterAll(() => close());
  return t;
}

/** Sessions by id with their owners, each owner a developer named after its id. */
export async function seedSessions(repos: Repositories, owners: Record<string, string>): Promise<void> {
  for (const userId of new Set(Object.values(owners)))
    await repos.users.create({ id: userId, name: userId.replace(/^user_/, ""), role: "developer" });
  for (const [id, ownerId] of Object.entries(owners))
    await repos.sessions.create({ id, name: id, ownerId, autonomy: "default", network: "none", env: {} });
}

/** Running bash runs by id with their sessions, started now by the session's owner. */
export async function seedRuns(repos: Repositories, sessions: Record<string, string>): Promise<void> {
  for (const [id, sessionId] of Object.entries(sessions)) {
    const userId = (await repos.sessions.ownerOf(sessionId)) ?? "";
    await repos.runs.create({
      id,
      sessionId,
      userId,
      tool: "bash",
      kind: "bash",
      args: {},
      secrets: [],
      caller: null,
      startedAt: new Date(),
    });
  }
}
