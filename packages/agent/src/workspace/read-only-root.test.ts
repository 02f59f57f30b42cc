import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadAgentConfig } from "../config";
import { createToolHarness, detailsOf, errorOf, type ToolHarness } from "../test-support/tool-harness";
import { syncSkills } from "./sync-skills";

// A read-only root on the host (the Docker suite runs the real /skills tmpfs, root's, as the workspace user).
let h: ToolHarness;
let skills: string;
let outside: string;

beforeAll(async () => {
  const base = realpathSync(mkdtempSync(path.join(tmpdir(), "berth-ro-root-")));
  skills = path.join(base, "skills");
  outside = path.join(base, "outside");
  mkdirSync(skills);
  mkdirSync(outside);
  writeFileSync(path.join(outside, "secret.txt"), "not a skill\n");
  h = await createToolHarness({ BERTH_SKILLS: skills });
  const config = loadAgentConfig({ PATH: process.env.PATH, BERTH_WORKSPACE: h.root, BERTH_SKILLS: skills });
  await syncSkills(config, [
    { name: "reader", body: "# Reader\nRead src/ first.\nThen grep for TODO.\n" },
    { name: "deploy", body: "Run make deploy.\n" },
  ]);
});
afterAll(async () => {
  await h?.cleanup();
  rmSync(path.dirname(skills), { recursive: true, force: true });
});

describe("syncSkills", () => {
  it("writes each skill as <root>/<name>/SKILL.md, drops unlisted ones, and writes nothing when all is as asked", async () => {
    expect(readFileSync(path.join(skills, "reader", "SKILL.md"), "utf8")).toBe(
      "# Reader\nRead src/ first.\nThen grep for TODO.\n",
    );
    const config = loadAgentConfig({ PATH: process.env.PATH, BERTH_WORKSPACE: h.root, BERTH_SKILLS: skills });
    const catalog = [
      { name: "reader", body: "# Reader\nRead src/ first.\nThen grep for TODO.\n" },
      { name: "deploy", body: "Run make deploy.\n" },
    ];
    expect(await syncSkills(config, catalog)).toEqual({ root: skills, skills: ["deploy", "reader"], written: false });
    const fewer = await syncSkills(config, [{ name: "deploy", body: "Run make deploy.\n" }]);
    expect(fewer).toEqual({ root: skills, skills: ["deploy"], written: true });
    expect(() => readFileSync(path.join(skills, "reader", "SKILL.md"))).toThrow(/ENOENT/);
    await syncSkills(config, catalog);
  });

  it("names a root that is not there", async () => {
    const config = loadAgentConfig({ PATH: process.env.PATH, BERTH_WORKSPACE: h.root, BERTH_SKILLS: `${skills}-gone` });
    await expect(syncSkills(config, [])).rejects.toThrow(
      `the skills root ${skills}-gone is not mounted in this sandbox`,
    );
  });
});

describe("a read-only root", () => {
  it("read_file reads a skill's file by its absolute path", async () => {
    const file = `${skills}/reader/SKILL.md`;
    expect(detailsOf(await h.call("read_file", { path: file }))).toMatchObject({
      path: file,
      content: "# Reader\nRead src/ first.\nThen grep for TODO.\n",
      totalLines: 3,
    });
  });

  it("grep and glob search it and show its paths absolute", async () => {
    const found = detailsOf<{ matches: { file: string; line: number }[] }>(
      await h.call("grep", { pattern: "TODO", path: skills }),
    );
    expect(found.matches).toEqual([expect.objectContaining({ file: `${skills}/reader/SKILL.md`, line: 3 })]);
    expect(detailsOf(await h.call("glob", { pattern: "**/SKILL.md", path: skills }))).toEqual({
      files: [`${skills}/deploy/SKILL.md`, `${skills}/reader/SKILL.md`],
      truncated: false,
    });
    expect(detailsOf(await h.call("glob", { pattern: `${skills}/reader/*.md` }))).toEqual({
      files: [`${skills}/reader/SKILL.md`],
      truncated: false,
    });
  });

  it("no write tool writes there, and nothing changed", async () => {
    const file = `${skills}/reader/SKILL.md`;
    const refused = `Path is in the read-only root ${skills}, which no tool writes: ${file}`;
    expect(errorOf(await h.call("write_file", { path: file, content: "x" }))).toBe(refused);
    expect(errorOf(await h.call("edit", { path: file, old_string: "Reader", new_string: "Writer" }))).toBe(refused);
    const patch = `*** Begin Patch\n*** Update File: ${file}\n@@\n-# Reader\n+# Writer\n*** End Patch`;
    expect(errorOf(await h.call("apply_patch", { patch }))).toContain(refused);
    expect(errorOf(await h.call("write_file", { path: `${skills}/new/SKILL.md`, content: "x" }))).toMatch(
      /^Path is in the read-only root/,
    );
    expect(readFileSync(file, "utf8")).toBe("# Reader\nRead src/ first.\nThen grep for TODO.\n");
  });

  it("a symlink in it that leads elsewhere is an escape, and a relative path never reaches it", async () => {
    symlinkSync(path.join(outside, "secret.txt"), path.join(skills, "deploy", "link.txt"));
    try {
      expect(errorOf(await h.call("read_file", { path: `${skills}/deploy/link.txt` }))).toBe(
        `Path escapes read-only root ${skills}: ${skills}/deploy/link.txt`,
      );
      expect(errorOf(await h.call("read_file", { path: `${skills}/../outside/secret.txt` }))).toMatch(
        /^Path escapes workspace root/,
      );
      expect(errorOf(await h.call("read_file", { path: "../skills/reader/SKILL.md" }))).toBe(
        "Path escapes workspace root: ../skills/reader/SKILL.md",
      );
    } finally {
      rmSync(path.join(skills, "deploy", "link.txt"));
    }
  });
});
