import { mkdir, symlink, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { GlobDetails } from "@berth/protocol";
import { createToolHarness, detailsOf, errorOf, type ToolHarness } from "../test-support/tool-harness";
import { globToRegExp } from "./glob-to-regexp";

let h: ToolHarness;
beforeEach(async () => {
  h = await createToolHarness();
  for (const rel of [
    "a.ts",
    "b.js",
    "src/c.ts",
    "src/deep/d.ts",
    "src/deep/e.tsx",
    "node_modules/m/i.ts",
    "dist/o.ts",
    ".git/x.ts",
    "build/b.ts",
    "target/t.ts",
    ".venv/v.ts",
    ".env",
  ]) {
    await mkdir(path.dirname(path.join(h.root, rel)), { recursive: true });
    await writeFile(path.join(h.root, rel), "");
  }
});
afterEach(() => h.cleanup());

const glob = async (args: Record<string, unknown>) => detailsOf<GlobDetails>(await h.call("glob", args));

describe("glob", () => {
  it("**/ matches zero or more folders; results are sorted files relative to the root", async () => {
    expect((await glob({ pattern: "**/*.ts" })).files).toEqual(["a.ts", "src/c.ts", "src/deep/d.ts"]);
  });

  it("skips .git always and the build folders unless includeIgnored", async () => {
    const all = await glob({ pattern: "**/*.ts", includeIgnored: true });
    expect(all.files).toEqual(
      [
        "a.ts",
        "build/b.ts",
        "dist/o.ts",
        "node_modules/m/i.ts",
        "src/c.ts",
        "src/deep/d.ts",
        "target/t.ts",
        ".venv/v.ts",
      ].sort(),
    );
    expect(all.files).not.toContain(".git/x.ts");
  });

  it("matches files only, within path, with braces and single-segment stars", async () => {
    expect((await glob({ pattern: "*" })).files).toEqual([".env", "a.ts", "b.js"]);
    expect((await glob({ pattern: "**/*.{ts,tsx}", path: "src/deep" })).files).toEqual([
      "src/deep/d.ts",
      "src/deep/e.tsx",
    ]);
    expect((await glob({ pattern: "src/*" })).files).toEqual(["src/c.ts"]);
  });

  it("accepts an absolute pattern inside the workspace and refuses one outside", async () => {
    expect((await glob({ pattern: `${h.root}/src/**/*.ts` })).files).toEqual(["src/c.ts", "src/deep/d.ts"]);
    expect(errorOf(await h.call("glob", { pattern: "/etc/*" }))).toBe("Path escapes workspace root: /etc/*");
    expect(errorOf(await h.call("glob", { pattern: "*", path: "a.ts" }))).toBe("Not a directory: a.ts");
  });

  it("caps results at maxResults and says so", async () => {
    expect(await glob({ pattern: "**/*", maxResults: 2 })).toEqual({ files: [".env", "a.ts"], truncated: true });
  });

  it("never follows a linked folder out of the workspace", async () => {
    await symlink("/etc", path.join(h.root, "etc-link"));
    expect((await glob({ pattern: "etc-link/**" })).files).toEqual([]);
  });

  it("refuses a missing folder and an escaping path", async () => {
    expect(errorOf(await h.call("glob", { pattern: "*", path: "nope" }))).toBe("Directory not found: nope");
    expect(errorOf(await h.call("glob", { pattern: "*", path: ".." }))).toBe("Path escapes workspace root: ..");
  });
});

describe("globToRegExp", () => {
  it("handles ?, classes and a trailing **", () => {
    expect(globToRegExp("a?c").test("abc")).toBe(true);
    expect(globToRegExp("a?c").test("a/c")).toBe(false);
    expect(globToRegExp("[!x]y").test("zy")).toBe(true);
    expect(globToRegExp("src/**").test("src/a/b")).toBe(true);
    expect(globToRegExp("{unclosed").test("{unclosed")).toBe(true);
  });
});
