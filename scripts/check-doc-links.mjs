// `npm run check:docs`: every relative link in the repo's Markdown must name a file or folder that exists,
// and no document may point outside the repository (a clone has nothing beside it). Run by `npm test`.
import fs from "node:fs";
import path from "node:path";
import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

/** Markdown links `[text](target)` and bare `<target>` autolinks are checked; code spans and fences are not. */
export function linksOf(markdown) {
  const withoutCode = markdown.replace(/```[\s\S]*?```/g, "").replace(/`[^`\n]*`/g, "");
  const links = [];
  for (const match of withoutCode.matchAll(/\[[^\]]*\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) links.push(match[1]);
  return links;
}

/** A problem with one link, or null: external URLs and pure anchors are not checked. */
export function linkProblem(fromFile, target, exists) {
  if (/^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith("#")) return null;
  const file = decodeURIComponent(target.split("#")[0]);
  if (!file) return null;
  const resolved = path.resolve(path.dirname(fromFile), file);
  if (!resolved.startsWith(root + path.sep) && resolved !== root) return `${target} points outside the repository`;
  return exists(resolved) ? null : `${target} does not exist`;
}

function main() {
  const files = execFileSync("git", ["ls-files", "*.md"], { cwd: root, encoding: "utf8" }).split("\n").filter(Boolean);
  const problems = [];
  for (const relative of files) {
    const file = path.join(root, relative);
    if (!fs.existsSync(file)) continue;
    for (const target of linksOf(fs.readFileSync(file, "utf8"))) {
      const problem = linkProblem(file, target, fs.existsSync);
      if (problem) problems.push(`${relative}: ${problem}`);
    }
  }
  if (problems.length) {
    process.stderr.write(`check:docs: ${problems.length} broken link${problems.length === 1 ? "" : "s"}:\n${problems.map((p) => `  ${p}`).join("\n")}\n`);
    process.exit(1);
  }
  process.stdout.write(`check:docs: every relative link in ${files.length} Markdown files resolves inside the repository\n`);
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) main();
