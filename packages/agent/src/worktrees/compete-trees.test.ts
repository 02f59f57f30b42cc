import { execFileSync } from "node:child_process";
import { mkdir, mkdtemp, readFile, realpath, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { loadAgentConfig, type AgentConfig } from "../config";
import { Workspace } from "../workspace/workspace";
import { applyTree, clearTrees, competeRoot, createTrees, snapshotTree, treeIdentity, treeWorkspace } from "./compete-trees";

let base: string;
let root: string;
let config: AgentConfig;
let workspace: Workspace;

beforeEach(async () => {
  base = await realpath(await mkdtemp(path.join(tmpdir(), "berth-trees-test-")));
  root = path.join(base, "workspace");
  await mkdir(root);
  config = loadAgentConfig({ PATH: process.env.PATH, BERTH_WORKSPACE: root, BERTH_AGENT_STATE: path.join(base, "state") });
  workspace = new Workspace(root);
  await writeFile(path.join(root, "lib.js"), "module.exports = () => 1;\n");
  await writeFile(path.join(root, "keep.txt"), "kept\n");
});
afterEach(() => rm(base, { recursive: true, force: true }));

const git = (...args: string[]) => execFileSync("git", ["-C", root, "-c", "user.name=t", "-c", "user.email=t@t", ...args], { encoding: "utf8" });
const inTree = (candidate: string, rel: string) => path.join(competeRoot(config), "c1", candidate, rel);

/** Three candidates from the workspace; b rewrites lib.js, c deletes keep.txt and adds new.txt. */
async function compete() {
  const made = await createTrees(workspace, config, { competeId: "c1", candidates: ["a", "b", "c"] });
  await writeFile(inTree("b", "lib.js"), "module.exports = () => 2;\n");
  await rm(inTree("c", "keep.txt"));
  await writeFile(inTree("c", "new.txt"), "new\n");
  const snaps = await Promise.all(["a", "b", "c"].map((candidate) => snapshotTree(config, { competeId: "c1", candidate, base: made.trees[0]!.base })));
  return { made, snaps };
}

describe.each(["git", "copy"] as const)("compete trees (%s)", (mode) => {
  beforeEach(() => {
    if (mode === "git") {
      git("init", "-q");
      git("add", "-A");
      git("commit", "-q", "-m", "init");
      // A dirty file rides along into every tree.
      return writeFile(path.join(root, "dirty.txt"), "uncommitted\n");
    }
  });

  it("makes one tree per candidate from the workspace as it is, and names each candidate's changes", async () => {
    const { made, snaps } = await compete();
    expect(made.mode).toBe(mode);
    expect(made.trees.map((t) => t.branch)).toEqual(["berth/compete/c1/a", "berth/compete/c1/b", "berth/compete/c1/c"]);
    if (mode === "git") expect(await readFile(inTree("a", "dirty.txt"), "utf8")).toBe("uncommitted\n");
    expect(snaps.map((s) => s.changes)).toEqual([
      [],
      [{ path: "lib.js", status: "modified" }],
      [
        { path: "keep.txt", status: "deleted" },
        { path: "new.txt", status: "added" },
      ],
    ]);
    expect((await treeWorkspace(config, "c1/b")).root).toBe(path.join(competeRoot(config), "c1", "b"));
    await expect(treeWorkspace(config, "c1/zz")).rejects.toThrow("compete tree not found: c1/zz");
    await expect(treeWorkspace(config, "../x")).rejects.toThrow("worktree must be <competeId>/<candidate>");
  });

  it("applies exactly the chosen candidate's commit, and refuses a moved branch or a workspace that moved", async () => {
    const { made, snaps } = await compete();
    const b = { competeId: "c1", candidate: "b", base: made.trees[0]!.base, commit: snaps[1]!.commit };
    const wrong = await applyTree(workspace, config, { ...b, commit: snaps[2]!.commit });
    expect(wrong).toMatchObject({ applied: false, reason: `branch berth/compete/c1/b is at ${snaps[1]!.commit}, not at ${snaps[2]!.commit} the judge chose` });
    await writeFile(path.join(root, "lib.js"), "module.exports = () => 3;\n");
    const moved = await applyTree(workspace, config, b);
    expect(moved).toEqual({ applied: false, reason: "the workspace moved since the plan began: lib.js changed there and in candidate b", conflicts: ["lib.js"] });
    expect(await readFile(path.join(root, "lib.js"), "utf8")).toBe("module.exports = () => 3;\n");
    await writeFile(path.join(root, "lib.js"), "module.exports = () => 1;\n");
    const c = await applyTree(workspace, config, { ...b, candidate: "c", commit: snaps[2]!.commit });
    expect(c).toMatchObject({ applied: true, files: [{ path: "keep.txt", status: "deleted", sha256: null }, { path: "new.txt", status: "added" }] });
    expect(await stat(path.join(root, "keep.txt")).catch(() => null)).toBeNull();
    expect(await readFile(path.join(root, "new.txt"), "utf8")).toBe("new\n");
    expect(await readFile(path.join(root, "lib.js"), "utf8")).toBe("module.exports = () => 1;\n");
  });

  it("has one identity per tree state, and clearing removes the trees and their branches", async () => {
    const first = await treeIdentity(workspace, config);
    expect(await treeIdentity(workspace, config)).toEqual(first);
    expect(first.text).toMatch(mode === "git" ? /^git HEAD=[0-9a-f]{40} dirty=1 sha256=[0-9a-f]{64}$/ : /^copy files=2 sha256=[0-9a-f]{64}$/);
    await compete();
    expect(await treeIdentity(workspace, config)).toEqual(first);
    await writeFile(path.join(root, "keep.txt"), "changed\n");
    expect((await treeIdentity(workspace, config)).text).not.toBe(first.text);
    const cleared = await clearTrees(workspace, config, "c1");
    expect(cleared).toEqual({ removedTrees: 3, removedBranches: mode === "git" ? 3 : 0 });
    expect(await stat(path.join(competeRoot(config), "c1")).catch(() => null)).toBeNull();
    if (mode === "git") expect(git("branch", "--list", "berth/*").trim()).toBe("");
  });
});
