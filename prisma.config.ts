import path from "node:path";
import { defineConfig } from "prisma/config";
import { PrismaPg } from "@prisma/adapter-pg";
import { SqliteAdapter } from "./packages/db/src/sqlite-adapter";

// Prisma CLI config: the JS schema engine with a driver adapter, so migrate works offline (docs/architecture.md).
// DATABASE_URL (postgres://…) selects PostgreSQL and its schema; otherwise SQLite in the data dir.
const databaseUrl = process.env.DATABASE_URL;
const usePostgres = Boolean(databaseUrl && /^postgres(ql)?:/.test(databaseUrl));
const dataDir = path.resolve(process.env.BERTH_DATA_DIR ?? ".berth");

export default defineConfig({
  experimental: { adapter: true },
  engine: "js",
  schema: usePostgres ? "prisma/postgres/schema.prisma" : "prisma/schema.prisma",
  migrations: { path: usePostgres ? "prisma/postgres/migrations" : "prisma/migrations" },
  async adapter() {
    if (usePostgres) return new PrismaPg({ connectionString: databaseUrl });
    return new SqliteAdapter({ url: `file:${path.join(dataDir, "berth.db")}` });
  },
});
