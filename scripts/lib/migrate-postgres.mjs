// Applies prisma/postgres/migrations to PostgreSQL. `prisma migrate deploy` cannot do it here: Prisma
// 6.19's JS schema engine with @prisma/adapter-pg fails reading the catalog ("Column type 'name' could
// not be deserialized"). The SQL files are still authored by `prisma migrate diff`; this only applies
// them, each once, in order, in a transaction, under an advisory lock so runners starting together agree.
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import pg from "pg";

const LOCK_ID = 0x6265727468; // "berth"

export async function migratePostgres(root, connectionString) {
  const dir = path.join(root, "prisma/postgres/migrations");
  const names = fs.readdirSync(dir).filter((name) => fs.existsSync(path.join(dir, name, "migration.sql"))).sort();
  const client = new pg.Client({ connectionString });
  await client.connect();
  const applied = [];
  try {
    await client.query("SELECT pg_advisory_lock($1)", [LOCK_ID]);
    await client.query(
      'CREATE TABLE IF NOT EXISTS "_berth_migrations" (name TEXT PRIMARY KEY, checksum TEXT NOT NULL, applied_at TIMESTAMPTZ NOT NULL DEFAULT now())',
    );
    const done = new Map((await client.query('SELECT name, checksum FROM "_berth_migrations"')).rows.map((r) => [r.name, r.checksum]));
    for (const name of names) {
      const sql = fs.readFileSync(path.join(dir, name, "migration.sql"), "utf8");
      const checksum = crypto.createHash("sha256").update(sql).digest("hex");
      if (done.has(name)) {
        if (done.get(name) !== checksum) throw new Error(`migration ${name} changed after it was applied (checksum differs)`);
        continue;
      }
      await client.query("BEGIN");
      try {
        await client.query(sql);
        await client.query('INSERT INTO "_berth_migrations" (name, checksum) VALUES ($1, $2)', [name, checksum]);
        await client.query("COMMIT");
        applied.push(name);
      } catch (error) {
        await client.query("ROLLBACK");
        throw new Error(`migration ${name} failed: ${error.message}`, { cause: error });
      }
    }
  } finally {
    await client.query("SELECT pg_advisory_unlock($1)", [LOCK_ID]).catch(() => undefined);
    await client.end();
  }
  return applied;
}
