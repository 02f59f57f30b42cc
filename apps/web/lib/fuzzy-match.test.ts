import { describe, expect, it } from "vitest";
import { fuzzyMatch, rankFuzzy } from "./fuzzy-match";

describe("fuzzyMatch", () => {
  it("matches characters in order, case-insensitive, and names where they are", () => {
    const match = fuzzyMatch("MaPy", "src/main.py");
    expect(match?.positions.map((p) => "src/main.py"[p]).join("")).toBe("mapy");
    expect(fuzzyMatch("ypm", "src/main.py")).toBeNull();
  });

  it("an empty query matches everything with no positions", () => {
    expect(fuzzyMatch("", "a/b.txt")).toEqual({ path: "a/b.txt", score: 0, positions: [] });
  });

  it("ignores spaces in the query", () => {
    expect(fuzzyMatch("deep file", "a/b/c/deep-file.txt")).not.toBeNull();
  });
});

describe("rankFuzzy", () => {
  it("puts a file-name match above one spread over folders", () => {
    const ranked = rankFuzzy("util", ["u/t/i/l.txt", "lib/util.ts", "src/very/long/path/utilities.ts"]);
    expect(ranked[0]?.path).toBe("lib/util.ts");
    expect(ranked.at(-1)?.path).toBe("u/t/i/l.txt");
  });

  it("finds a file three folders deep by part of its name", () => {
    const paths = ["one/two/three/target-note.md", "one/two/other.md", "target/readme.md", "notes.md"];
    expect(rankFuzzy("tnote", paths)[0]?.path).toBe("one/two/three/target-note.md");
  });

  it("prefers word starts (camelCase and separators)", () => {
    const ranked = rankFuzzy("fm", ["app/form.ts", "lib/fuzzyMatch.ts"]);
    expect(ranked[0]?.path).toBe("lib/fuzzyMatch.ts");
  });

  it("keeps the best `limit` of 50k paths", () => {
    const paths = Array.from({ length: 50_000 }, (_, i) => `pkg${i % 100}/src/module-${i}.ts`);
    paths.push("pkg7/src/needle.ts");
    const ranked = rankFuzzy("needle", paths, 10);
    expect(ranked).toHaveLength(1);
    expect(ranked[0]?.path).toBe("pkg7/src/needle.ts");
    expect(rankFuzzy("module", paths, 10)).toHaveLength(10);
  });
});
