import { mkdir, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createToolHarness, detailsOf, errorOf, type ToolHarness } from "../test-support/tool-harness";
import { CodeIndex } from "./code-index";
import { dropCodeIndex } from "./code-index-cache";
import { loadAgentConfig } from "../config";
import { parseImports } from "./parse-imports";
import { PATH_REGEX_MAX_CHARS, PATH_REGEX_TIME_LIMIT_MS, pathMatcher } from "./path-matcher";

// The agent's half of code_nav on the host (ctags from Debian, as in the image); the contract over a real
// container is apps/runner/src/tools/code-nav.docker.test.ts.
let h: ToolHarness;

async function put(rel: string, content: string) {
  await mkdir(path.dirname(path.join(h.root, rel)), { recursive: true });
  await writeFile(path.join(h.root, rel), content);
}

beforeEach(async () => {
  h = await createToolHarness();
});
afterEach(async () => {
  dropCodeIndex(h.root);
  await h.cleanup();
});

describe("parseImports", () => {
  it("reads static JS/TS import forms and skips commented ones", () => {
    const text = [
      'import { a } from "./a";',
      'import type { B } from "@acme/b";',
      "// import { no } from './commented';",
      'export * from "./c.js";',
      'const d = require("d");',
      "import {",
      "  e,",
      '} from "./e";',
      'import "./side-effect";',
    ].join("\n");
    expect(parseImports(text, "js").map((i) => [i.specifier, i.line])).toEqual([
      ["./a", 1],
      ["@acme/b", 2],
      ["./c.js", 4],
      ["d", 5],
      ["./e", 6],
      ["./side-effect", 9],
    ]);
  });

  it("reads Python import and from-import with the names imported", () => {
    const text =
      "import os, sys as system\nfrom .models import (\n    User,\n    Group,\n)\n# from nowhere import x\nfrom pkg.util import helper\n";
    expect(parseImports(text, "python")).toEqual([
      { specifier: "os", line: 1 },
      { specifier: "sys", line: 1 },
      { specifier: ".models", line: 2, names: ["User", "Group"] },
      { specifier: "pkg.util", line: 7, names: ["helper"] },
    ]);
  });

  it("reads Go import blocks, Rust mod/use and Java imports", () => {
    expect(
      parseImports('package main\nimport (\n\t"fmt"\n\tu "example.com/m/util"\n)\n', "go").map((i) => i.specifier),
    ).toEqual(["fmt", "example.com/m/util"]);
    expect(
      parseImports("mod inner;\npub mod outer { }\nuse crate::a::b;\nuse serde::Serialize;\n", "rust").map(
        (i) => i.specifier,
      ),
    ).toEqual(["mod inner", "crate::a::b", "serde::Serialize"]);
    expect(
      parseImports("package a;\nimport java.util.List;\nimport static a.b.C.m;\n", "java").map((i) => i.specifier),
    ).toEqual(["java.util.List", "a.b.C.m"]);
  });
});

describe("pathMatcher", () => {
  it("strips the g and y flags, so a regex test never depends on the last match", () => {
    const matcher = pathMatcher("/\\.ts$/gy");
    expect(matcher.kind).toBe("regex");
    expect(["a.ts", "b.ts", "c.ts"].map((f) => matcher.test(f))).toEqual([true, true, true]);
  });

  it("refuses an unknown flag by name, and a bad regex with the engine's reason", () => {
    expect(() => pathMatcher("/x/q")).toThrow('code_nav: query: unknown regex flag "q" in /x/q');
    expect(() => pathMatcher("/(/")).toThrow(/invalid regular expression \/\(\//);
  });

  it("bounds a /regex/: its length before it compiles, its run by a time limit off the agent's thread", async () => {
    const long = `/${"a".repeat(PATH_REGEX_MAX_CHARS)}/`;
    expect(() => pathMatcher(long)).toThrow(
      `code_nav: query: a /regex/ may be at most ${PATH_REGEX_MAX_CHARS} characters (got ${long.length})`,
    );
    expect(await pathMatcher("/\\.ts$/").filter(["a.ts", "b.py", "c/d.ts"])).toEqual(["a.ts", "c/d.ts"]);
    // Backtracks for ever on a path of a's ending in a b: without the limit this would never answer.
    const paths = [`${"a".repeat(40)}b`, "src/index.ts"];
    let ticks = 0;
    const timer = setInterval(() => ticks++, 50);
    await expect(pathMatcher("/(a+)+$/").filter(paths)).rejects.toThrow(
      `code_nav: query: /(a+)+$/ ran past the time limit of ${PATH_REGEX_TIME_LIMIT_MS} ms over 2 paths`,
    );
    clearInterval(timer);
    // The agent's own thread kept running while the pattern spun.
    expect(ticks).toBeGreaterThan(0);
  });

  it("a glob without a slash matches the file name at any depth; substring is case-insensitive unless capitalised", () => {
    expect(pathMatcher("*.py").test("pkg/sub/mod.py")).toBe(true);
    expect(pathMatcher("pkg/*.py").test("pkg/sub/mod.py")).toBe(false);
    expect(pathMatcher("readme").test("docs/README.md")).toBe(true);
    expect(pathMatcher("Readme").test("docs/README.md")).toBe(false);
  });
});

describe("code_nav in the agent", () => {
  it("finds a definition, then sees a new one after a file changes, without re-reading the rest", async () => {
    await put("src/a.ts", "export function alpha(x: number): number {\n  return x;\n}\n");
    await put("src/b.ts", 'import { alpha } from "./a";\nexport class Beta {\n  run() { return alpha(1); }\n}\n');
    const first = detailsOf(await h.call("code_nav", { mode: "symbol", query: "alpha" }));
    expect(first).toMatchObject({
      total: 1,
      symbols: [{ name: "alpha", path: "src/a.ts", line: 1, kind: "function" }],
    });
    expect((first.symbols as { signature: string }[])[0]?.signature).toBe("export function alpha(x: number): number {");

    await put("src/a.ts", "export function alpha(x: number): number {\n  return x;\n}\nexport const gamma = 3;\n");
    const result = await h.call("code_nav", { mode: "symbol", query: "gamma" });
    expect(detailsOf(result)).toMatchObject({ total: 1, symbols: [{ path: "src/a.ts", line: 4 }] });
    expect((result.trace as { index: { parsed: number; full: boolean } }).index).toMatchObject({
      parsed: 1,
      full: false,
    });
  });

  it("forgets a deleted file and its dependents edge", async () => {
    await put("src/a.ts", "export const a = 1;\n");
    await put("src/b.ts", 'import { a } from "./a";\n');
    expect(detailsOf(await h.call("code_nav", { mode: "dependents", query: "src/a.ts" }))).toMatchObject({
      dependents: [{ path: "src/b.ts", line: 1 }],
    });
    await rm(path.join(h.root, "src/b.ts"));
    expect(detailsOf(await h.call("code_nav", { mode: "dependents", query: "src/a.ts" }))).toMatchObject({ total: 0 });
    expect(detailsOf(await h.call("code_nav", { mode: "path", query: "b.ts" }))).toMatchObject({ total: 0 });
  });

  it("sends a file path given to symbol to outline, and a name given to outline to symbol", async () => {
    await put("src/a.ts", "export function alpha() {}\n");
    const wrong = await h.call("code_nav", { mode: "symbol", query: "src/a.ts" });
    expect(wrong.error?.code).toBe("wrong_mode");
    expect(errorOf(wrong)).toMatch(/use mode "outline"/);
    expect(wrong.details).toEqual({ redirect: "outline", query: "src/a.ts" });
    const back = await h.call("code_nav", { mode: "outline", query: "alpha" });
    expect(back.details).toEqual({ redirect: "symbol", query: "alpha" });
  });

  it("refuses a path outside the workspace", async () => {
    expect(errorOf(await h.call("code_nav", { mode: "outline", query: "../etc/passwd" }))).toBe(
      "Path escapes workspace root: ../etc/passwd",
    );
  });

  it("without watchers re-stats every file per query: a change is still seen, an unchanged file is not parsed again", async () => {
    await put("a.py", "def one():\n    pass\n");
    await put("b.py", "def two():\n    pass\n");
    const index = new CodeIndex(
      h.root,
      loadAgentConfig({ PATH: process.env.PATH, BERTH_WORKSPACE: h.root, BERTH_AGENT_STATE: h.stateDir }),
      { watch: false },
    );
    try {
      expect(await index.refresh()).toMatchObject({ parsed: 2, full: true });
      await put("b.py", "def two():\n    pass\n\n\ndef three():\n    pass\n");
      expect(await index.refresh()).toMatchObject({ parsed: 1, full: true });
      expect(index.symbolsNamed("three")).toMatchObject([{ path: "b.py", line: 5, kind: "function" }]);
      await rm(path.join(h.root, "a.py"));
      expect(await index.refresh()).toMatchObject({ parsed: 0, removed: 1 });
      expect(index.symbolsNamed("one")).toEqual([]);
    } finally {
      index.close();
    }
  });
});
