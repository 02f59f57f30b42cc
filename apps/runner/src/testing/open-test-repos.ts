import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { createDatabase, createRepositories, type Repositories } from "@berth/db";
import { createTestDatabase } from "./test-database";

/**
 * Fresh repositories with the real migrations, for tests without Docker: SQLite in a data dir of its own, or a new
 * PostgreSQL database when BERTH_TEST_POSTGRES_URL is set (createTestDatabase); `close` removes either.
 */
export async function openTestRepos(prefix: string): Promise<{ dataDir: string; repos: Repositories; close(): Promise<void> }> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  const database = createTestDatabase(dataDir);
  const repos = createRepositories(await createDatabase({ dataDir, databaseUrl: database.url }));
  const close = async () => {
    await repos.close();
    database.drop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  };
  return { dataDir, repos, close };
}
