// One id for one Monaco bundle: the folder it is served from (/_next/static/monaco/<id>/) changes
// whenever what goes into it changes, so its files can be cached as immutable. next.config.ts passes
// the same id to the page, which is how the page finds the bundle.
import crypto from "node:crypto";
import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";

const here = path.dirname(new URL(import.meta.url).pathname);
const require = createRequire(import.meta.url);

/** A package's version, found from its entry point (monaco-editor's exports hide its package.json). */
function versionOf(name) {
  for (let dir = path.dirname(require.resolve(name)); dir !== path.dirname(dir); dir = path.dirname(dir)) {
    const manifest = path.join(dir, "package.json");
    if (fs.existsSync(manifest)) {
      const pkg = JSON.parse(fs.readFileSync(manifest, "utf8"));
      if (pkg.name === name) return pkg.version;
    }
  }
  throw new Error(`cannot find the package.json of ${name}`);
}

export function monacoBuildId() {
  const hash = crypto.createHash("sha256");
  hash.update(versionOf("monaco-editor"));
  hash.update(versionOf("esbuild"));
  for (const file of ["entry.ts", "build.mjs"]) hash.update(fs.readFileSync(path.join(here, file)));
  return hash.digest("hex").slice(0, 12);
}

export const MONACO_URL_PREFIX = "/_next/static/monaco";
