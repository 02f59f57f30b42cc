// Rewrites the Roles table in docs/api.md from apps/runner/src/auth/authorize.ts (run through tsx:
// `npm run docs:roles`). apps/runner/src/auth/roles-table.test.ts fails when the two differ.
import fs from "node:fs";
import path from "node:path";
import { withRolesTable } from "../apps/runner/src/auth/roles-table.ts";

const file = path.resolve(import.meta.dirname, "../docs/api.md");
const before = fs.readFileSync(file, "utf8");
const after = withRolesTable(before);
if (after !== before) fs.writeFileSync(file, after);
process.stdout.write(
  after === before ? "docs/api.md: Roles table already up to date\n" : "docs/api.md: Roles table rewritten\n",
);
