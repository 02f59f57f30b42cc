import fs from "node:fs";
import path from "node:path";
import { PrismaClient } from "./generated/sqlite/client";
import { restrictDataDir } from "./restrict-data-dir";
import { SqliteAdapter } from "./sqlite-adapter";

/** The client type is the SQLite one; the PostgreSQL client is generated from the same model. */
export type Database = PrismaClient;

export type DatabaseOptions = {
  /** Directory of the SQLite file (`berth.db`); created when missing. */
  dataDir: string;
  /** A postgres:// URL selects PostgreSQL; anything else means the embedded SQLite default. */
  databaseUrl?: string | undefined;
};

export type DatabaseKind = "sqlite" | "postgresql";

export function databaseKind(databaseUrl: string | undefined): DatabaseKind {
  return databaseUrl && /^postgres(ql)?:/.test(databaseUrl) ? "postgresql" : "sqlite";
}

export function sqlitePath(dataDir: string): string {
  return path.join(dataDir, "berth.db");
}

/**
 * Opens the database through a driver adapter (Prisma's JS engine: no native query engine to download).
 * Migrations are applied by `prisma migrate deploy` during setup, not here.
 */
const postgresUrls = new WeakMap<Database, string>();

/** The URL a PostgreSQL database was opened with (a repository that talks to it without Prisma); undefined for SQLite. */
export function postgresUrlOf(db: Database): string | undefined {
  return postgresUrls.get(db);
}

const sqliteWriters = new WeakMap<Database, SqliteAdapter>();

/**
 * For SQLite, a write with bound values (`?` placeholders) run at once on the client's own connection, past Prisma's
 * query compiler (a repository's hot batch insert); undefined for PostgreSQL, which keeps going through Prisma.
 */
export function sqliteWriterOf(db: Database): ((sql: string, args: readonly unknown[]) => number) | undefined {
  const adapter = sqliteWriters.get(db);
  return adapter ? (sql, args) => adapter.writeNow(sql, args) : undefined;
}

export async function createDatabase(options: DatabaseOptions): Promise<Database> {
  if (databaseKind(options.databaseUrl) === "postgresql") {
    const [{ PrismaPg }, generated] = await Promise.all([
      import("@prisma/adapter-pg"),
      import("./generated/postgres/client"),
    ]);
    const client = new generated.PrismaClient({ adapter: new PrismaPg({ connectionString: options.databaseUrl }) });
    // Both clients are generated from one model, so their query API is the same.
    postgresUrls.set(client as unknown as Database, options.databaseUrl ?? "");
    return client as unknown as Database;
  }
  fs.mkdirSync(options.dataDir, { recursive: true, mode: 0o700 });
  // WAL lets readers proceed while a run's rows are written; busy_timeout rides out short write locks.
  // synchronous=NORMAL is the WAL setting SQLite recommends: no fsync per commit (a tool call writes a
  // row), still never corrupt; a power cut may lose the last commits, never a log already on disk.
  const pragmas = { journal_mode: "WAL", synchronous: "NORMAL", busy_timeout: 5000 };
  const adapter = new SqliteAdapter({ url: `file:${sqlitePath(options.dataDir)}`, pragmas });
  const client = new PrismaClient({ adapter });
  await client.$connect();
  sqliteWriters.set(client, adapter);
  // Once the WAL and SHM exist (SQLite gives them the database file's mode from then on).
  restrictDataDir(options.dataDir);
  return client;
}

/** A cheap round trip for /healthz. */
export async function pingDatabase(db: Database): Promise<{ ok: boolean; latencyMs: number; error?: string }> {
  const started = performance.now();
  try {
    await db.$queryRawUnsafe("SELECT 1");
    return { ok: true, latencyMs: Math.round((performance.now() - started) * 100) / 100 };
  } catch (error) {
    return { ok: false, latencyMs: Math.round(performance.now() - started), error: (error as Error).message };
  }
}
