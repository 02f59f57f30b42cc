import type { Dirent } from "node:fs";
import { readdir, realpath, stat } from "node:fs/promises";
import path from "node:path";
import { GLOB_IGNORED_DIRS, GlobArgsSchema, type GlobDetails } from "@berth/protocol";
import { defineTool, okResult } from "../tools/tool-context";
import { fail } from "../tools/tool-failure-error";
import { isInside } from "../workspace/workspace";
import { globMaxDepth, globToRegExp } from "./glob-to-regexp";

const IGNORED = new Set<string>(GLOB_IGNORED_DIRS);

export const globTool = defineTool({
  name: "glob",
  schema: GlobArgsSchema,
  async run(args, { workspace }) {
    // Models often write the pattern as an absolute path inside the workspace: search from the root then.
    let pattern = args.pattern;
    let basePath = args.path;
    if (path.isAbsolute(pattern)) {
      const readOnlyRoot = workspace.readOnlyRoots.find((r) => pattern.startsWith(r + "/"));
      const root = [workspace.root, await workspace.realRoot()].find((r) => pattern.startsWith(r + "/"));
      if (root === undefined && readOnlyRoot === undefined) fail("path_escape", `Path escapes workspace root: ${args.pattern}`);
      pattern = pattern.slice(((root ?? readOnlyRoot) as string).length + 1);
      basePath = readOnlyRoot ?? ".";
    }
    const base = await workspace.resolveForRead(basePath);
    const info = await stat(base.real).catch(() => undefined);
    if (!info) fail("not_found", `Directory not found: ${basePath}`);
    if (!info?.isDirectory()) fail("not_a_directory", `Not a directory: ${basePath}`);

    pattern = pattern.replace(/^(\.\/)+/, "");
    const matcher = globToRegExp(pattern);
    const maxDepth = globMaxDepth(pattern);
    // A link counts only when it ends inside the root the search is in (the workspace, or a read-only root).
    const realRoot = base.root;
    const prefix = base.rel === "." ? "" : base.rel + "/";
    const files: string[] = [];
    let dirsVisited = 0;

    const walk = async (dir: string, relDir: string, depth: number): Promise<void> => {
      dirsVisited++;
      let entries: Dirent[];
      try {
        entries = await readdir(dir, { withFileTypes: true });
      } catch {
        return; // unreadable folder: skip, like find(1) without the noise
      }
      const subdirs: Promise<void>[] = [];
      for (const entry of entries) {
        const rel = relDir === "" ? entry.name : `${relDir}/${entry.name}`;
        const full = path.join(dir, entry.name);
        if (entry.isDirectory()) {
          if (entry.name === ".git" || (!args.includeIgnored && IGNORED.has(entry.name))) continue;
          if (depth + 1 < maxDepth) subdirs.push(walk(full, rel, depth + 1));
        } else if (entry.isFile()) {
          if (matcher.test(rel)) files.push(prefix + rel);
        } else if (entry.isSymbolicLink() && matcher.test(rel)) {
          // A link counts as a file only when it ends at a file inside the workspace; linked folders are
          // never followed (no loops, no escapes).
          const target = await realpath(full).catch(() => undefined);
          if (target && isInside(target, realRoot) && (await stat(target)).isFile()) files.push(prefix + rel);
        }
      }
      await Promise.all(subdirs);
    };
    await walk(base.real, "", 0);

    files.sort(compareStrings);
    const details: GlobDetails = { files: files.slice(0, args.maxResults), truncated: files.length > args.maxResults };
    return okResult(details, { matched: files.length, dirsVisited });
  },
});

/** Code-point order: the same on every machine, unlike localeCompare. */
export function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
