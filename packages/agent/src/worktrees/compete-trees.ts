import { createHash } from "node:crypto";
import { cp, lstat, mkdir, readFile, readdir, readlink, realpath, rm, symlink, unlink } from "node:fs/promises";
import path from "node:path";
import { TreeNameSchema } from "@berth/protocol";
import type {
  TreeApplyParams,
  TreeApplyResult,
  TreeChange,
  TreeIdentity,
  TreeMode,
  TreeSnapshotParams,
  TreeSnapshotResult,
  TreesClearResult,
  TreesCreateParams,
  TreesCreateResult,
} from "@berth/protocol";
import type { AgentConfig } from "../config";
import { fail } from "../tools/tool-failure-error";
import { atomicWrite } from "../workspace/atomic-write";
import { Workspace } from "../workspace/workspace";
import { gitText, runGit } from "./run-git";

/** A copy of a workspace that is not a repository is held in the container's /tmp: these bound it per candidate. */
export const COPY_MAX_FILES = 20_000;
export const COPY_MAX_BYTES = 48 * 1024 * 1024;

/**
 * Where candidate trees live: beside the agent's state folder in the container's own /tmp (BERTH_AGENT_STATE's
 * parent), never on the host, one folder per compete and one per candidate. They stay until `trees.clear`.
 */
export function competeRoot(config: AgentConfig): string {
  return path.join(path.dirname(config.stateDir), "berth-compete");
}

export const treePath = (config: AgentConfig, competeId: string, candidate: string): string => path.join(competeRoot(config), competeId, candidate);
export const treeBranch = (competeId: string, candidate: string): string => `berth/compete/${competeId}/${candidate}`;

/** The candidate tree a tool call runs in, as a Workspace its paths are confined to; a missing tree is refused by name. */
export async function treeWorkspace(config: AgentConfig, name: string): Promise<Workspace> {
  if (!TreeNameSchema.safeParse(name).success) fail("invalid_args", `worktree must be <competeId>/<candidate> (got ${JSON.stringify(name.slice(0, 140))})`);
  const [competeId = "", candidate = ""] = name.split("/");
  const dir = treePath(config, competeId, candidate);
  for (const p of [competeRoot(config), path.dirname(dir), dir]) {
    const info = await lstat(p).catch(() => undefined);
    if (!info?.isDirectory()) fail("not_found", `compete tree not found: ${name}`);
  }
  return new Workspace(dir);
}

/** git mode when /workspace is the top of a repository with a commit; otherwise candidates are copies. */
async function modeOf(workspace: Workspace, config: AgentConfig): Promise<TreeMode> {
  const root = await workspace.realRoot();
  const top = await gitText(root, config, ["rev-parse", "--show-toplevel"]).catch(() => "");
  if (!top || (await realpath(top).catch(() => "")) !== root) return "copy";
  const head = await gitText(root, config, ["rev-parse", "--verify", "-q", "HEAD"]).catch(() => "");
  return head ? "git" : "copy";
}

/** Paths git reports changed against HEAD (tracked changes and untracked files, ignored ones left out). */
async function dirtyPaths(root: string, config: AgentConfig): Promise<string[]> {
  const out = await runGit(root, config, ["status", "--porcelain=v1", "-z", "--untracked-files=all", "--no-renames"]);
  return out
    .toString("utf8")
    .split("\0")
    .filter((entry) => entry.length > 3)
    .map((entry) => entry.slice(3))
    .sort();
}

const sha256 = (data: string | Buffer): string => createHash("sha256").update(data).digest("hex");

/** A file's content hash for the identity (a link by its target), or `absent`. */
async function contentHash(file: string): Promise<string> {
  const info = await lstat(file).catch(() => undefined);
  if (!info) return "absent";
  if (info.isSymbolicLink()) return `link:${await readlink(file)}`;
  if (!info.isFile()) return info.isDirectory() ? "dir" : "other";
  return sha256(await readFile(file));
}

/** Every file under root (posix paths, sorted), with the bytes they hold; refuses past the copy limits. */
async function listFiles(root: string): Promise<{ files: string[]; bytes: number }> {
  const files: string[] = [];
  let bytes = 0;
  const pending = [""];
  while (pending.length) {
    const rel = pending.pop()!;
    for (const entry of await readdir(path.join(root, rel), { withFileTypes: true })) {
      const child = rel ? `${rel}/${entry.name}` : entry.name;
      if (entry.isDirectory()) pending.push(child);
      else {
        files.push(child);
        if (entry.isFile()) bytes += (await lstat(path.join(root, child))).size;
      }
      if (files.length > COPY_MAX_FILES)
        fail("too_large", `compete: /workspace is not a git repository and has more than ${COPY_MAX_FILES} files to copy per candidate; make it a repository (git init, commit) so candidates are worktrees`);
    }
  }
  if (bytes > COPY_MAX_BYTES)
    fail("too_large", `compete: /workspace is not a git repository and holds ${bytes} bytes, over the ${COPY_MAX_BYTES} a copy per candidate may take; make it a repository so candidates are worktrees`);
  return { files: files.sort(), bytes };
}

/**
 * What the workspace is now, in one line an approval binds: in a repository HEAD and a hash over every dirty
 * path's content, otherwise a hash over every file. Equal trees give equal lines; any change changes it.
 */
export async function treeIdentity(workspace: Workspace, config: AgentConfig): Promise<TreeIdentity> {
  const root = await workspace.realRoot();
  const mode = await modeOf(workspace, config);
  const paths = mode === "git" ? await dirtyPaths(root, config) : (await listFiles(root)).files;
  const lines = await Promise.all(paths.map(async (p) => `${p}\t${await contentHash(path.join(root, p))}`));
  if (mode === "git") {
    const head = await gitText(root, config, ["rev-parse", "HEAD"]);
    return { mode, text: `git HEAD=${head} dirty=${paths.length} sha256=${sha256(lines.join("\n"))}` };
  }
  return { mode, text: `copy files=${paths.length} sha256=${sha256(lines.join("\n"))}` };
}

/**
 * One tree per candidate, all starting from the workspace as it is now (dirty files included), each on a branch
 * of its own whose first commit (`base`) holds that state. In a repository they are `git worktree`s of it;
 * otherwise copies, each with a repository of its own made for the purpose.
 */
export async function createTrees(workspace: Workspace, config: AgentConfig, params: TreesCreateParams): Promise<TreesCreateResult> {
  const root = await workspace.realRoot();
  const identity = await treeIdentity(workspace, config);
  if (new Set(params.candidates).size !== params.candidates.length) fail("invalid_args", "compete: candidate ids must differ");
  if (identity.mode === "copy") {
    const { bytes } = await listFiles(root);
    if (bytes * params.candidates.length > COPY_MAX_BYTES * 2)
      fail("too_large", `compete: ${params.candidates.length} copies of ${bytes} bytes exceed the ${COPY_MAX_BYTES * 2} bytes the container's /tmp may take; make /workspace a repository`);
  }
  await mkdir(competeRoot(config), { recursive: true });
  const dir = path.join(competeRoot(config), params.competeId);
  await mkdir(dir).catch((error: NodeJS.ErrnoException) => {
    if (error.code === "EEXIST") fail("conflict", `compete: trees for ${params.competeId} already exist`);
    throw error;
  });
  const [first, ...rest] = params.candidates as [string, ...string[]];
  const firstPath = treePath(config, params.competeId, first);
  if (identity.mode === "git") {
    await runGit(root, config, ["worktree", "add", "-q", "-b", treeBranch(params.competeId, first), firstPath, "HEAD"]);
    // The dirty state rides along: what is changed or untracked in /workspace is changed in the tree too.
    for (const rel of await dirtyPaths(root, config)) {
      const target = path.join(firstPath, rel);
      if (await lstat(path.join(root, rel)).catch(() => undefined)) {
        await mkdir(path.dirname(target), { recursive: true });
        await cp(path.join(root, rel), target, { force: true, verbatimSymlinks: true });
      } else await rm(target, { force: true });
    }
  } else {
    await cp(root, firstPath, { recursive: true, verbatimSymlinks: true });
    await runGit(firstPath, config, ["init", "-q", "-b", treeBranch(params.competeId, first)]);
  }
  await runGit(firstPath, config, ["add", "-A"]);
  await runGit(firstPath, config, ["commit", "-q", "--allow-empty", "--no-verify", "-m", `berth compete ${params.competeId}: base`]);
  const base = await gitText(firstPath, config, ["rev-parse", "HEAD"]);
  for (const candidate of rest) {
    const target = treePath(config, params.competeId, candidate);
    const branch = treeBranch(params.competeId, candidate);
    if (identity.mode === "git") await runGit(root, config, ["worktree", "add", "-q", "-b", branch, target, base]);
    else {
      await cp(firstPath, target, { recursive: true, verbatimSymlinks: true });
      await runGit(target, config, ["checkout", "-q", "-b", branch]);
    }
  }
  return {
    mode: identity.mode,
    identity,
    trees: params.candidates.map((candidate) => ({ candidate, path: treePath(config, params.competeId, candidate), branch: treeBranch(params.competeId, candidate), base })),
  };
}

/** The paths a candidate's commit changes against its base. */
async function changesOf(dir: string, config: AgentConfig, base: string, commit: string): Promise<TreeChange[]> {
  const parts = (await runGit(dir, config, ["diff", "--name-status", "-z", "--no-renames", base, commit])).toString("utf8").split("\0");
  const changes: TreeChange[] = [];
  for (let i = 0; i + 1 < parts.length; i += 2) {
    const letter = parts[i]!;
    changes.push({ path: parts[i + 1]!, status: letter === "A" ? "added" : letter === "D" ? "deleted" : "modified" });
  }
  return changes;
}

/** Commits what the candidate's task left in its tree (ignored files stay out) and names the paths it changed. */
export async function snapshotTree(config: AgentConfig, params: TreeSnapshotParams): Promise<TreeSnapshotResult> {
  const dir = (await treeWorkspace(config, `${params.competeId}/${params.candidate}`)).root;
  await runGit(dir, config, ["add", "-A"]);
  await runGit(dir, config, ["commit", "-q", "--allow-empty", "--no-verify", "-m", `berth compete ${params.competeId}: ${params.candidate}`]);
  const commit = await gitText(dir, config, ["rev-parse", "HEAD"]);
  return { commit, changes: await changesOf(dir, config, params.base, commit) };
}

/** git's object id of some bytes as a blob (sha1, or sha256 in a sha256 repository: told by the base's length). */
function blobId(data: Buffer, idLength: number): string {
  return createHash(idLength === 64 ? "sha256" : "sha1")
    .update(`blob ${data.length}\0`)
    .update(data)
    .digest("hex");
}

/** Mode and object id of each path in a commit (absent paths are missing from the map). */
async function entriesOf(dir: string, config: AgentConfig, commit: string, paths: string[]): Promise<Map<string, { mode: string; id: string }>> {
  const out = (await runGit(dir, config, ["ls-tree", "-z", commit, "--", ...paths])).toString("utf8");
  const entries = new Map<string, { mode: string; id: string }>();
  for (const line of out.split("\0").filter(Boolean)) {
    const [meta = "", file = ""] = line.split("\t");
    const [mode = "", , id = ""] = meta.split(" ");
    entries.set(file, { mode, id });
  }
  return entries;
}

/**
 * Applies a candidate's commit to /workspace. Refused, with nothing written, when the candidate's branch no
 * longer points at the commit the judge chose, or when a path it changes changed in the workspace since the
 * base was taken (the workspace moved in a conflicting way). Files are written atomically, with their modes.
 */
export async function applyTree(workspace: Workspace, config: AgentConfig, params: TreeApplyParams): Promise<TreeApplyResult> {
  const dir = (await treeWorkspace(config, `${params.competeId}/${params.candidate}`)).root;
  const branch = treeBranch(params.competeId, params.candidate);
  const head = await gitText(dir, config, ["rev-parse", `refs/heads/${branch}`]).catch(() => "missing");
  if (head !== params.commit)
    return { applied: false, reason: `branch ${branch} is at ${head}, not at ${params.commit} the judge chose`, conflicts: [] };
  const changes = await changesOf(dir, config, params.base, params.commit);
  const paths = changes.map((c) => c.path);
  const before = await entriesOf(dir, config, params.base, paths);
  const after = await entriesOf(dir, config, params.commit, paths);
  const targets = new Map<string, string>();
  const conflicts: string[] = [];
  for (const change of changes) {
    const target = await workspace.resolveForWrite(change.path);
    targets.set(change.path, target.real);
    const info = await lstat(target.real).catch(() => undefined);
    const now = !info ? undefined : info.isSymbolicLink() ? blobId(Buffer.from(await readlink(target.real)), params.base.length) : info.isFile() ? blobId(await readFile(target.real), params.base.length) : "not-a-file";
    if (now !== before.get(change.path)?.id) conflicts.push(change.path);
  }
  if (conflicts.length)
    return { applied: false, reason: `the workspace moved since the plan began: ${conflicts.join(", ")} changed there and in candidate ${params.candidate}`, conflicts };
  const files: (TreeChange & { sha256: string | null })[] = [];
  for (const change of changes) {
    const target = targets.get(change.path)!;
    const entry = after.get(change.path);
    if (!entry) {
      await unlink(target).catch((error: NodeJS.ErrnoException) => (error.code === "ENOENT" ? undefined : Promise.reject(error)));
      files.push({ ...change, sha256: null });
      continue;
    }
    const data = await runGit(dir, config, ["cat-file", "blob", entry.id]);
    if (entry.mode === "120000") {
      await rm(target, { force: true });
      await mkdir(path.dirname(target), { recursive: true });
      await symlink(data.toString("utf8"), target);
    } else {
      if ((await lstat(target).catch(() => undefined))?.isSymbolicLink()) await unlink(target);
      await atomicWrite(target, data, { mode: entry.mode === "100755" ? 0o755 : 0o644 });
    }
    files.push({ ...change, sha256: sha256(data) });
  }
  return { applied: true, files };
}

/** Removes a compete's trees and their branches (in /workspace's repository; a copy's went with it). */
export async function clearTrees(workspace: Workspace, config: AgentConfig, competeId: string): Promise<TreesClearResult> {
  const root = await workspace.realRoot();
  const dir = path.join(competeRoot(config), competeId);
  const trees = await readdir(dir).catch(() => [] as string[]);
  await rm(dir, { recursive: true, force: true });
  if ((await modeOf(workspace, config)) !== "git") return { removedTrees: trees.length, removedBranches: 0 };
  await runGit(root, config, ["worktree", "prune"]);
  const refs = (await gitText(root, config, ["for-each-ref", "--format=%(refname)", `refs/heads/berth/compete/${competeId}/`])).split("\n").filter(Boolean);
  for (const ref of refs) await runGit(root, config, ["update-ref", "-d", ref]);
  return { removedTrees: trees.length, removedBranches: refs.length };
}
