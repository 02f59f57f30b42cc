import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { execFileSync } from "node:child_process";
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
  execFileSync("npx", ["prisma", "migrate", "deploy"], { cwd: ROOT, env: { ...process.env, BERTH_DATA_DIR: staging, DATABASE_URL: "" }, stdio: "pipe" });
  try {
    fs.renameSync(staging, dir);
  } catch {
    // Another test file moved its template in first: the same migrations, so the same file.
    fs.rmSync(staging, { recursive: true, force: true });
  }
  return dir;
}

/** Repositories over a fresh migrated SQLite file, with the raw client for seeding rows; `close` removes it. */
export async function openTestRepositories(): Promise<{ repos: Repositories; db: Database; close: () => Promise<void> }> {
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
