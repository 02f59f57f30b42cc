// `node scripts/compat/vendor-codex-fixtures.mjs <source> [dest]`: copies the Codex apply_patch scenarios
// (openai/codex, codex-rs/apply-patch/tests/fixtures/scenarios, Apache-2.0) into the repo as test data.
// <source> is a folder holding `scenarios/` and `provenance.json` (per file: upstream commit and size of
// the copy). The copy there differs from upstream in known ways, undone here:
//  1. each file has one extra line naming its own path under codex-rs/ (`# apply-patch/tests/…`, or
//     `<!-- … -->` in Markdown), anywhere in the file: exactly that one line is dropped;
//  2. 014's input is about a file without a final newline, but the copy ends with one: it is stripped;
//  3. 019's patch exists at two upstream commits: the copy must be the one provenance.json records.
// dest defaults to packages/agent/test-fixtures/codex-apply-patch; its scenario folders are replaced.
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const UPSTREAM_DIR = "codex-rs/apply-patch/tests/fixtures/scenarios";
const NO_FINAL_NEWLINE = "014_update_file_appends_trailing_newline/input/no_newline.txt";
const PINNED = { "019_unicode_simple/patch.txt": "71163530a46dc568775f9ee95a9b57de3385cd9a" };

/** Every file under `dir`, as posix paths relative to it, sorted. */
function listFiles(dir, prefix = "") {
  return fs
    .readdirSync(dir, { withFileTypes: true })
    .flatMap((entry) => {
      const rel = prefix ? `${prefix}/${entry.name}` : entry.name;
      if (entry.isDirectory()) return listFiles(path.join(dir, entry.name), rel);
      return entry.isFile() ? [rel] : [];
    })
    .sort();
}

/** The file's bytes as upstream has them: without the one line that names its own path. */
export function restoreUpstream(rel, text) {
  const own = `apply-patch/tests/fixtures/scenarios/${rel}`;
  const lines = text.split("\n");
  const hits = lines.flatMap((line, k) => (line === `# ${own}` || line === `<!-- ${own} -->` ? [k] : []));
  if (hits.length !== 1) throw new Error(`${rel}: expected exactly one line naming ${own}, found ${hits.length}`);
  lines.splice(hits[0], 1);
  let restored = lines.join("\n");
  if (rel === NO_FINAL_NEWLINE) {
    if (!restored.endsWith("\n")) throw new Error(`${rel}: expected the copy to end with a newline`);
    restored = restored.slice(0, -1);
  }
  return restored;
}

export function vendor(source, dest) {
  const scenariosDir = path.join(source, "scenarios");
  const provenance = JSON.parse(fs.readFileSync(path.join(source, "provenance.json"), "utf8"));
  const files = listFiles(scenariosDir);
  const record = {};
  for (const rel of files) {
    const entry = provenance[rel];
    if (!entry) throw new Error(`${rel}: not in provenance.json`);
    const bytes = fs.readFileSync(path.join(scenariosDir, rel));
    if (bytes.length !== entry.bytes)
      throw new Error(`${rel}: ${bytes.length} bytes, provenance.json says ${entry.bytes}`);
    if (PINNED[rel] && entry.commit !== PINNED[rel])
      throw new Error(`${rel}: from ${entry.commit}, expected ${PINNED[rel]}`);
    record[rel] = entry.commit;
  }
  const scenarios = [...new Set(files.filter((f) => f.includes("/")).map((f) => f.split("/")[0]))];
  fs.mkdirSync(dest, { recursive: true });
  for (const name of fs.readdirSync(dest)) {
    if (/^\d{3}_/.test(name)) fs.rmSync(path.join(dest, name), { recursive: true, force: true });
  }
  for (const rel of files) {
    const restored = restoreUpstream(rel, fs.readFileSync(path.join(scenariosDir, rel), "utf8"));
    // Upstream's README sits beside ours; its .gitattributes (LF, as text) applies to the copy as it did there.
    const target = path.join(dest, rel === "README.md" ? "UPSTREAM-README.md" : rel);
    fs.mkdirSync(path.dirname(target), { recursive: true });
    fs.writeFileSync(target, restored);
  }
  const provenanceOut = { source: `openai/codex ${UPSTREAM_DIR}`, license: "Apache-2.0", files: record };
  fs.writeFileSync(path.join(dest, "provenance.json"), `${JSON.stringify(provenanceOut, null, 1)}\n`);
  return { scenarios: scenarios.length, files: files.length };
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const [source, dest = path.join(root, "packages/agent/test-fixtures/codex-apply-patch")] = process.argv.slice(2);
  if (!source) {
    process.stderr.write("usage: node scripts/compat/vendor-codex-fixtures.mjs <source folder> [dest]\n");
    process.exit(2);
  }
  const { scenarios, files } = vendor(path.resolve(source), path.resolve(dest));
  process.stdout.write(`vendored ${scenarios} scenarios (${files} files) into ${path.relative(root, dest) || dest}\n`);
}
