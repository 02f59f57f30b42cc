import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { GrepDetails } from "@berth/protocol";
import { createToolHarness, detailsOf, errorOf, type ToolHarness } from "../test-support/tool-harness";

let h: ToolHarness;
const put = async (rel: string, content: string | Buffer) => {
  await mkdir(path.dirname(path.join(h.root, rel)), { recursive: true });
  await writeFile(path.join(h.root, rel), content);
};
beforeEach(async () => {
  h = await createToolHarness();
  await put("b.ts", "const needle = 1;\nother\nNEEDLE again\n");
  await put("a.ts", "needle first\n");
  await put("sub/c.md", "a needle in markdown\n");
  await put("node_modules/x/i.ts", "needle\n");
  await put(".git/n", "needle\n");
});
afterEach(() => h.cleanup());

const grep = async (args: Record<string, unknown>) => detailsOf<GrepDetails>(await h.call("grep", args));

describe("grep", () => {
  it("finds matches sorted by file then line, skipping ignored folders", async () => {
    const d = await grep({ pattern: "needle" });
    expect(d.matches).toEqual([
      { file: "a.ts", line: 1, content: "needle first" },
      { file: "b.ts", line: 1, content: "const needle = 1;" },
      { file: "sub/c.md", line: 1, content: "a needle in markdown" },
    ]);
    expect(d).toMatchObject({ filesMatched: 3, totalMatches: 3, truncated: false });
  });

  it("supports caseInsensitive, literal, include and path", async () => {
    expect((await grep({ pattern: "needle", caseInsensitive: true, path: "b.ts" })).matches.map((m) => m.line)).toEqual(
      [1, 3],
    );
    expect((await grep({ pattern: "needle", include: "*.md" })).matches.map((m) => m.file)).toEqual(["sub/c.md"]);
    await put("re.txt", "a.b\naxb\n");
    expect((await grep({ pattern: "a.b", literal: true, path: "re.txt" })).matches.map((m) => m.content)).toEqual([
      "a.b",
    ]);
  });

  it("returns context lines marked as context", async () => {
    const d = await grep({ pattern: "other", context: 1, path: "b.ts" });
    expect(d.matches).toEqual([
      { file: "b.ts", line: 1, content: "const needle = 1;", isContext: true },
      { file: "b.ts", line: 2, content: "other" },
      { file: "b.ts", line: 3, content: "NEEDLE again", isContext: true },
    ]);
    expect(d.totalMatches).toBe(1);
  });

  it("caps results at maxResults and keeps counting", async () => {
    const d = await grep({ pattern: "needle", maxResults: 2 });
    expect(d.matches).toHaveLength(2);
    expect(d).toMatchObject({ truncated: true, totalMatches: 3, filesMatched: 3 });
  });

  it("counts every match in a big file but keeps only maxResults, with their context", async () => {
    await put("many.txt", Array.from({ length: 5000 }, (_, i) => `hit ${i}`).join("\n") + "\n");
    const d = await grep({ pattern: "^hit", path: "many.txt", maxResults: 3, context: 1 });
    expect(d.matches.filter((m) => !m.isContext).map((m) => m.line)).toEqual([1, 2, 3]);
    expect(d.matches).toHaveLength(3);
    expect(d).toMatchObject({ totalMatches: 5000, filesMatched: 1, truncated: true });
  });

  it("cuts lines at 500 characters", async () => {
    await put("long.txt", `needle${"x".repeat(1000)}\n`);
    const [m] = (await grep({ pattern: "needle", path: "long.txt" })).matches;
    expect(m?.content).toHaveLength(500);
    expect(m?.lineTruncated).toBe(true);
  });

  it("skips binary files (even when named) and files over 10 MiB", async () => {
    await put("bin.dat", Buffer.concat([Buffer.from("needle\n"), Buffer.from([0, 1, 2]), Buffer.from("needle\n")]));
    await put("big.txt", Buffer.alloc(10 * 1024 * 1024 + 10, "needle\n"));
    expect((await grep({ pattern: "needle" })).matches.map((m) => m.file)).toEqual(["a.ts", "b.ts", "sub/c.md"]);
    expect((await grep({ pattern: "needle", path: "bin.dat" })).matches).toEqual([]);
  });

  it("returns an invalid regex as an error result", async () => {
    expect(errorOf(await h.call("grep", { pattern: "(unclosed" }))).toMatch(/^Invalid regex in pattern: \(unclosed/);
  });

  it("refuses a missing or escaping path", async () => {
    expect(errorOf(await h.call("grep", { pattern: "x", path: "nope" }))).toBe("Path not found: nope");
    expect(errorOf(await h.call("grep", { pattern: "x", path: "../" }))).toBe("Path escapes workspace root: ../");
  });

  it("finds nothing in an empty folder without an error", async () => {
    await mkdir(path.join(h.root, "empty"));
    expect(await grep({ pattern: "x", path: "empty" })).toEqual({
      matches: [],
      filesMatched: 0,
      totalMatches: 0,
      truncated: false,
    });
  });

  it("records what ripgrep searched in the trace", async () => {
    const result = await h.call("grep", { pattern: "needle" });
    expect(result.trace).toMatchObject({ engine: "ripgrep", filesSearched: 3 });
  });
});
