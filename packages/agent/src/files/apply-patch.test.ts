import { execFileSync } from "node:child_process";
import { mkdir, readFile, readdir, stat, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { ApplyPatchDetails } from "@berth/protocol";
import { createToolHarness, detailsOf, errorOf, type ToolHarness } from "../test-support/tool-harness";

let h: ToolHarness;
beforeEach(async () => {
  h = await createToolHarness();
});
afterEach(() => h.cleanup());

const file = (rel: string) => path.join(h.root, rel);
const put = async (rel: string, content: string) => {
  await mkdir(path.dirname(file(rel)), { recursive: true });
  await writeFile(file(rel), content);
};
const text = (rel: string) => readFile(file(rel), "utf8");
const patch = (...lines: string[]) => ["*** Begin Patch", ...lines, "*** End Patch"].join("\n");
const apply = async (p: string) => detailsOf<ApplyPatchDetails>(await h.call("apply_patch", { patch: p }));

describe("apply_patch (*** Begin Patch format)", () => {
  it("adds, updates, deletes and moves files and reports each change", async () => {
    await put("src/a.ts", "one\ntwo\nthree\n");
    await put("old.txt", "bye\n");
    await put("mv.txt", "x\ny\n");
    const d = await apply(
      patch(
        "*** Add File: new/b.ts",
        "+hello",
        "+world",
        "*** Update File: src/a.ts",
        "@@",
        " one",
        "-two",
        "+TWO",
        "+2",
        " three",
        "*** Delete File: old.txt",
        "*** Update File: mv.txt",
        "*** Move to: moved/mv.txt",
        "@@",
        "-x",
        "+X",
      ),
    );
    expect(await text("new/b.ts")).toBe("hello\nworld\n");
    expect(await text("src/a.ts")).toBe("one\nTWO\n2\nthree\n");
    await expect(stat(file("old.txt"))).rejects.toThrow();
    await expect(stat(file("mv.txt"))).rejects.toThrow();
    expect(await text("moved/mv.txt")).toBe("X\ny\n");
    expect(d).toEqual({
      filesChanged: 5,
      operationsApplied: 4,
      fileChanges: [
        { path: "new/b.ts", operation: "add", linesAdded: 2, linesRemoved: 0 },
        { path: "src/a.ts", operation: "update", linesAdded: 2, linesRemoved: 1 },
        { path: "old.txt", operation: "delete", linesAdded: 0, linesRemoved: 1 },
        { path: "mv.txt", operation: "move", movePath: "moved/mv.txt", linesAdded: 1, linesRemoved: 1 },
      ],
    });
  });

  it("uses the @@ anchor to pick the right place, searching forward", async () => {
    await put("a.py", "def f():\n    return 1\n\ndef g():\n    return 1\n");
    await apply(patch("*** Update File: a.py", "@@ def g():", "-    return 1", "+    return 2"));
    expect(await text("a.py")).toBe("def f():\n    return 1\n\ndef g():\n    return 2\n");
  });

  it("honours *** End of File and keeps a missing final newline", async () => {
    await put("a.txt", "x\nend\nx\nend");
    await apply(patch("*** Update File: a.txt", "@@", " x", "-end", "+END", "*** End of File"));
    expect(await text("a.txt")).toBe("x\nend\nx\nEND");
  });

  it("keeps CRLF line endings", async () => {
    await put("w.txt", "a\r\nb\r\nc\r\n");
    await apply(patch("*** Update File: w.txt", "@@", " a", "-b", "+B", "+B2", " c"));
    expect(await text("w.txt")).toBe("a\r\nB\r\nB2\r\nc\r\n");
  });

  it("tolerates trailing-whitespace differences in context", async () => {
    await put("a.txt", "keep   \nold\n");
    await apply(patch("*** Update File: a.txt", "@@", " keep", "-old", "+new"));
    expect(await text("a.txt")).toBe("keep   \nnew\n");
  });

  it("is atomic: a failing operation leaves every file untouched", async () => {
    await put("a.txt", "a\n");
    await put("b.txt", "b\n");
    const result = await h.call("apply_patch", {
      patch: patch(
        "*** Update File: a.txt",
        "@@",
        "-a",
        "+A",
        "*** Add File: c.txt",
        "+c",
        "*** Update File: b.txt",
        "@@",
        "-nope",
        "+x",
      ),
    });
    expect(errorOf(result)).toMatch(/^Failed to locate hunk in b\.txt/);
    expect(await text("a.txt")).toBe("a\n");
    await expect(stat(file("c.txt"))).rejects.toThrow();
    expect((await readdir(h.root)).sort()).toEqual(["a.txt", "b.txt"]);
  });

  it("reports the spec's errors", async () => {
    await put("a.txt", "a\n");
    expect(errorOf(await h.call("apply_patch", { patch: "just text" }))).toMatch(/^Invalid patch envelope/);
    expect(errorOf(await h.call("apply_patch", { patch: "*** Begin Patch\n*** Add File: x\n+x" }))).toMatch(
      /^Invalid patch envelope/,
    );
    expect(errorOf(await h.call("apply_patch", { patch: patch("*** Frobnicate: a.txt") }))).toBe(
      "Unsupported patch line: *** Frobnicate: a.txt",
    );
    expect(errorOf(await h.call("apply_patch", { patch: patch("*** Add File: x", "no plus") }))).toBe(
      "Unsupported patch line: no plus",
    );
    expect(errorOf(await h.call("apply_patch", { patch: patch("*** Add File: a.txt", "+x") }))).toBe(
      "File already exists: a.txt",
    );
    expect(errorOf(await h.call("apply_patch", { patch: patch("*** Delete File: gone.txt") }))).toBe(
      "File does not exist: gone.txt",
    );
    expect(errorOf(await h.call("apply_patch", { patch: patch("*** Update File: gone.txt", "@@", "-a", "+b") }))).toBe(
      "File does not exist: gone.txt",
    );
    expect(errorOf(await h.call("apply_patch", { patch: patch("*** Add File: ../x", "+x") }))).toBe(
      "Path escapes workspace root: ../x",
    );
    expect(errorOf(await h.call("apply_patch", { patch: patch("*** Add File: .git/hooks/pre-commit", "+x") }))).toBe(
      "Writes under .git are refused: .git/hooks/pre-commit",
    );
    expect(await text("a.txt")).toBe("a\n");
  });

  it("accepts a patch wrapped in a Markdown fence", async () => {
    await apply(["```", patch("*** Add File: f.txt", "+fenced"), "```"].join("\n"));
    expect(await text("f.txt")).toBe("fenced\n");
  });
});

describe("apply_patch (unified diff)", () => {
  const gitDiff = (before: Record<string, string>, after: Record<string, string>) => {
    const repo = path.join(h.stateDir, "repo");
    execFileSync("bash", ["-c", `rm -rf ${repo} && mkdir -p ${repo} && cd ${repo} && git init -q`]);
    const write = (files: Record<string, string>) => {
      execFileSync("bash", [
        "-c",
        `cd ${repo} && git rm -rq --cached . >/dev/null 2>&1; find . -path ./.git -prune -o -type f -exec rm {} +`,
      ]);
      for (const [rel, content] of Object.entries(files)) {
        execFileSync("bash", ["-c", `mkdir -p "$(dirname "${repo}/${rel}")"`]);
        execFileSync("bash", ["-c", `cat > "${repo}/${rel}"`], { input: content });
      }
    };
    write(before);
    execFileSync("bash", ["-c", `cd ${repo} && git add -A && git -c user.email=t@t -c user.name=t commit -qm base`]);
    write(after);
    return execFileSync("bash", ["-c", `cd ${repo} && git add -A && git diff --cached -M`]).toString();
  };

  it("applies what git diff prints: edits, new files, deletions, missing final newline", async () => {
    const before = { "a.txt": "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n", "del.txt": "bye\n", "nonl.txt": "x\ny" };
    const after = { "a.txt": "1\n2\nthree\n4\n5\n6\n7\n8\n9\nten\n11\n", "new/n.txt": "fresh\n", "nonl.txt": "x\nY\n" };
    for (const [rel, content] of Object.entries(before)) await put(rel, content);
    const diff = gitDiff(before, after);
    const d = await apply(diff);
    expect(await text("a.txt")).toBe(after["a.txt"]);
    expect(await text("new/n.txt")).toBe("fresh\n");
    expect(await text("nonl.txt")).toBe("x\nY\n");
    await expect(stat(file("del.txt"))).rejects.toThrow();
    expect(d.operationsApplied).toBe(4);
    expect((await h.call("apply_patch", { patch: patch("*** Add File: t.txt", "+t") })).trace).toEqual({
      format: "envelope",
    });
  });

  it("applies renames and keeps CRLF", async () => {
    await put("w.txt", "a\r\nb\r\n");
    await apply(["--- a/w.txt", "+++ b/w2.txt", "@@ -1,2 +1,2 @@", " a", "-b", "+B"].join("\n"));
    expect(await text("w2.txt")).toBe("a\r\nB\r\n");
    await expect(stat(file("w.txt"))).rejects.toThrow();
  });

  it("finds a hunk by context when the line numbers are off", async () => {
    await put("a.txt", "zero\nzero\nalpha\nbeta\n");
    await apply(["--- a/a.txt", "+++ b/a.txt", "@@ -1,2 +1,2 @@", " alpha", "-beta", "+BETA"].join("\n"));
    expect(await text("a.txt")).toBe("zero\nzero\nalpha\nBETA\n");
  });

  it("fails cleanly on a hunk that does not apply and on junk lines", async () => {
    await put("a.txt", "a\n");
    expect(
      errorOf(
        await h.call("apply_patch", { patch: ["--- a/a.txt", "+++ b/a.txt", "@@ -1 +1 @@", "-zzz", "+y"].join("\n") }),
      ),
    ).toMatch(/^Failed to locate hunk in a\.txt/);
    expect(
      errorOf(
        await h.call("apply_patch", { patch: ["--- a/a.txt", "+++ b/a.txt", "@@ -1 +1 @@", "?a", "+y"].join("\n") }),
      ),
    ).toBe("Unsupported patch line: ?a");
    expect(await text("a.txt")).toBe("a\n");
  });
});
