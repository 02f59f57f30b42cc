import { execFile } from "node:child_process";
import type { Dirent } from "node:fs";
import { readdir, stat } from "node:fs/promises";
import path from "node:path";
import { GLOB_IGNORED_DIRS, type WorkspaceSummary } from "@berth/protocol";
import type { AgentConfig } from "../config";
import { asWorkspaceUser } from "../processes/launch";
import type { Workspace } from "../workspace/workspace";
import { languageOf } from "./language-of";

const IGNORED = new Set<string>(GLOB_IGNORED_DIRS);
/** A summary, not an index: counting stops here and says so. */
const MAX_FILES_COUNTED = 50_000;
const MAX_TREE_ENTRIES = 200;
const MAX_DIRTY = 100;
const LAST_COMMITS = 5;
const GIT_TIMEOUT_MS = 10_000;

/**
 * What `context workspace` shows: git state, the top-level tree, files per language and whether AGENTS.md
 * exists. Read-only; nothing here writes to the workspace.
 */
export async function workspaceSummary(workspace: Workspace, config: AgentConfig): Promise<WorkspaceSummary> {
  const root = await workspace.realRoot();
  const [git, tree, counts, agentsMd] = await Promise.all([
    gitState(root, config),
    topLevel(root),
    countLanguages(root),
    agentsMdOf(root),
  ]);
  return { root: workspace.root, git, ...tree, ...counts, agentsMd };
}

async function topLevel(root: string): Promise<Pick<WorkspaceSummary, "tree" | "treeTruncated">> {
  const entries = await readdir(root, { withFileTypes: true });
  const names = entries
    .filter((entry) => entry.name !== ".git")
    .map((entry) => (entry.isDirectory() ? `${entry.name}/` : entry.name))
    .sort();
  return { tree: names.slice(0, MAX_TREE_ENTRIES), treeTruncated: names.length > MAX_TREE_ENTRIES };
}

async function countLanguages(
  root: string,
): Promise<Pick<WorkspaceSummary, "languages" | "filesCounted" | "countTruncated">> {
  const counts = new Map<string, number>();
  let files = 0;
  let truncated = false;
  const pending = [root];
  while (pending.length > 0 && !truncated) {
    const dir = pending.pop()!;
    let entries: Dirent[];
    try {
      entries = await readdir(dir, { withFileTypes: true });
    } catch {
      continue; // unreadable folder: not counted, as glob skips it
    }
    for (const entry of entries) {
      if (entry.isDirectory()) {
        if (entry.name !== ".git" && !IGNORED.has(entry.name)) pending.push(path.join(dir, entry.name));
      } else if (entry.isFile()) {
        if (++files > MAX_FILES_COUNTED) {
          truncated = true;
          files = MAX_FILES_COUNTED;
          break;
        }
        const language = languageOf(entry.name);
        if (language) counts.set(language, (counts.get(language) ?? 0) + 1);
      }
    }
  }
  const languages = [...counts]
    .map(([language, n]) => ({ language, files: n }))
    .sort((a, b) => b.files - a.files || a.language.localeCompare(b.language));
  return { languages, filesCounted: files, countTruncated: truncated };
}

async function agentsMdOf(root: string): Promise<WorkspaceSummary["agentsMd"]> {
  const info = await stat(path.join(root, "AGENTS.md")).catch(() => undefined);
  return info?.isFile() ? { exists: true, bytes: info.size } : { exists: false, bytes: 0 };
}

async function gitState(root: string, config: AgentConfig): Promise<WorkspaceSummary["git"]> {
  const inside = await git(root, config, ["rev-parse", "--is-inside-work-tree"]).catch((error: Error) => error);
  if (inside instanceof Error) return { repository: false, reason: firstLine(inside.message) };
  const status = await git(root, config, ["status", "--porcelain=v1", "--branch", "-z"]);
  const [head = "", ...entries] = status.split("\0").filter((part) => part !== "");
  const branchLine = parseBranchLine(head);
  const dirty: { path: string; status: string }[] = [];
  for (let i = 0; i < entries.length; i++) {
    const entry = entries[i]!;
    const code = entry.slice(0, 2);
    dirty.push({ path: entry.slice(3), status: code.trim() || code });
    // A rename or copy carries its old path as the next NUL-separated field.
    if (code.startsWith("R") || code.startsWith("C")) i++;
  }
  // No commit yet: git log fails; the branch is still named.
  const log = await git(root, config, ["log", `-${LAST_COMMITS}`, "--format=%h%x1f%s%x1f%an%x1f%cI%x1e"]).catch(
    () => "",
  );
  const lastCommits = log
    .split("\x1e")
    .map((record) => record.trim())
    .filter((record) => record !== "")
    .map((record) => {
      const [sha = "", subject = "", author = "", date = ""] = record.split("\x1f");
      return { sha, subject, author, date };
    });
  return {
    repository: true,
    ...branchLine,
    dirty: dirty.slice(0, MAX_DIRTY),
    dirtyTruncated: dirty.length > MAX_DIRTY,
    lastCommits,
  };
}

/** `## main...origin/main [ahead 1, behind 2]`, `## No commits yet on main`, `## HEAD (no branch)`. */
export function parseBranchLine(line: string): {
  branch: string | null;
  upstream: string | null;
  ahead: number;
  behind: number;
} {
  const text = line.replace(/^## /, "");
  const ahead = Number(/ahead (\d+)/.exec(text)?.[1] ?? 0);
  const behind = Number(/behind (\d+)/.exec(text)?.[1] ?? 0);
  const bare = text.replace(/ \[.*\]$/, "");
  if (bare.startsWith("HEAD (no branch)")) return { branch: null, upstream: null, ahead, behind };
  const noCommits = /^No commits yet on (.+)$/.exec(bare) ?? /^Initial commit on (.+)$/.exec(bare);
  if (noCommits) return { branch: noCommits[1]!, upstream: null, ahead, behind };
  const [branch = bare, upstream = null] = bare.split("...");
  return { branch, upstream, ahead, behind };
}

/**
 * git as the workspace user, never as the agent: the repository's own config can name programs git runs
 * (fsmonitor, clean filters), so what it runs must not have the agent's identity. The output is then only as
 * trustworthy as the workspace itself, which is all it describes.
 */
function git(root: string, config: AgentConfig, args: string[]): Promise<string> {
  const launch = asWorkspaceUser(config, "git", [
    "-c",
    "safe.directory=*",
    "-c",
    "core.fsmonitor=false",
    "-C",
    root,
    ...args,
  ]);
  return new Promise((resolve, reject) => {
    execFile(
      launch.file,
      launch.args,
      {
        env: { ...config.baseEnv, GIT_CONFIG_NOSYSTEM: "1", GIT_OPTIONAL_LOCKS: "0", GIT_TERMINAL_PROMPT: "0" },
        timeout: GIT_TIMEOUT_MS,
        maxBuffer: 8 * 1024 * 1024,
      },
      (error, stdout, stderr) => (error ? reject(new Error(String(stderr || error.message))) : resolve(stdout)),
    );
  });
}

function firstLine(text: string): string {
  return text.trim().split("\n")[0]?.slice(0, 200) ?? "";
}
