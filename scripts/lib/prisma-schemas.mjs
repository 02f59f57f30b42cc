// prisma/schema.prisma (SQLite) is the one source of the model; the PostgreSQL schema is derived from
// it so the two can never drift. Returns true when the derived file changed.
import fs from "node:fs";
import path from "node:path";

export function writePostgresSchema(root) {
  const source = fs.readFileSync(path.join(root, "prisma/schema.prisma"), "utf8");
  const derived =
    "// GENERATED from prisma/schema.prisma by scripts/lib/prisma-schemas.mjs: edit the source, not this file.\n" +
    source
      .replace('provider = "sqlite"', 'provider = "postgresql"')
      .replace('url      = "file:./berth.db"', 'url      = "postgresql://localhost/berth"')
      .replace('output     = "../packages/db/src/generated/sqlite"', 'output     = "../../packages/db/src/generated/postgres"');
  const target = path.join(root, "prisma/postgres/schema.prisma");
  const before = fs.existsSync(target) ? fs.readFileSync(target, "utf8") : "";
  if (before === derived) return false;
  fs.mkdirSync(path.dirname(target), { recursive: true });
  fs.writeFileSync(target, derived);
  return true;
}
