import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { createDatabase, createRepositories, type Repositories } from "@berth/db";
import { migrateSqlite } from "./test-database";

/** A fresh SQLite database with the real migrations in a data dir of its own, for tests without Docker. */
export async function openSqliteRepos(prefix: string): Promise<{ dataDir: string; repos: Repositories; close(): Promise<void> }> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  migrateSqlite(dataDir);
  const repos = createRepositories(await createDatabase({ dataDir }));
  const close = async () => {
    await repos.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  };
  return { dataDir, repos, close };
}
