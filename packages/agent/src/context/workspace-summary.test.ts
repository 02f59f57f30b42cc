import { execFileSync } from "node:child_process";
import { mkdir, mkdtemp, realpath, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { loadAgentConfig } from "../config";
import { Workspace } from "../workspace/workspace";
import { parseBranchLine, workspaceSummary } from "./workspace-summary";

let root: string;
const git = (...args: string[]) =>
  execFileSync("git", ["-C", root, ...args], {
    env: {
      ...process.env,
      GIT_AUTHOR_NAME: "Ada",
      GIT_AUTHOR_EMAIL: "ada@example.test",
      GIT_COMMITTER_NAME: "Ada",
      GIT_COMMITTER_EMAIL: "ada@example.test",
    },
  });
const summarize = () =>
  workspaceSummary(new Workspace(root), loadAgentConfig({ PATH: process.env.PATH, BERTH_WORKSPACE: root }));

beforeEach(async () => {
  root = await realpath(await mkdtemp(path.join(tmpdir(), "berth-summary-")));
});
afterEach(() => rm(root, { recursive: true, force: true }));

describe("workspaceSummary", () => {
  it("reports git branch, dirty files and last commits, the top-level tree and files per language", async () => {
    await mkdir(path.join(root, "src"));
    await mkdir(path.join(root, "node_modules/x"), { recursive: true });
    await writeFile(path.join(root, "src/a.ts"), "export const a = 1;\n");
    await writeFile(path.join(root, "src/b.ts"), "export const b = 2;\n");
    await writeFile(path.join(root, "tool.py"), "print(1)\n");
    await writeFile(path.join(root, "node_modules/x/index.js"), "skipped\n");
    await writeFile(path.join(root, "AGENTS.md"), "# notes\n");
    git("init", "-q", "-b", "main");
    git("add", ".");
    git("commit", "-q", "-m", "first commit");
    await writeFile(path.join(root, "src/a.ts"), "export const a = 3;\n");
    await writeFile(path.join(root, "new.py"), "x = 1\n");

    const summary = await summarize();
    expect(summary.git).toMatchObject({ repository: true, branch: "main", upstream: null, ahead: 0, behind: 0 });
    if (!summary.git.repository) throw new Error("not a repository");
    expect(summary.git.dirty).toEqual(
      expect.arrayContaining([
        { path: "src/a.ts", status: "M" },
        { path: "new.py", status: "??" },
      ]),
    );
    expect(summary.git.lastCommits.map((c) => [c.subject, c.author])).toEqual([["first commit", "Ada"]]);
    expect(summary.tree).toEqual(["AGENTS.md", "new.py", "node_modules/", "src/", "tool.py"]);
    expect(summary.languages).toEqual([
      { language: "Python", files: 2 },
      { language: "TypeScript", files: 2 },
      { language: "Markdown", files: 1 },
    ]);
    expect(summary.agentsMd).toEqual({ exists: true, bytes: 8 });
  });

  it("says why when the workspace is not a git repository", async () => {
    const summary = await summarize();
    expect(summary.git.repository).toBe(false);
    expect(summary.agentsMd.exists).toBe(false);
  });

  it("reads a branch line with an upstream, ahead/behind, no commits yet and a detached HEAD", () => {
    expect(parseBranchLine("## main...origin/main [ahead 1, behind 2]")).toEqual({
      branch: "main",
      upstream: "origin/main",
      ahead: 1,
      behind: 2,
    });
    expect(parseBranchLine("## No commits yet on trunk")).toEqual({
      branch: "trunk",
      upstream: null,
      ahead: 0,
      behind: 0,
    });
    expect(parseBranchLine("## HEAD (no branch)")).toEqual({ branch: null, upstream: null, ahead: 0, behind: 0 });
  });
});
