import { execFileSync } from "node:child_process";
import { chmod, mkdir, readFile, readdir, stat, writeFile } from "node:fs/promises";
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

  it("is read as a diff even when its text quotes the envelope, and keeps an untouched missing final newline", async () => {
    await put("doc.md", "intro\n*** Begin Patch\nend");
    const diff = ["--- a/doc.md", "+++ b/doc.md", "@@ -1,2 +1,2 @@", "-intro", "+INTRO", " *** Begin Patch"].join("\n");
    const result = await h.call("apply_patch", { patch: diff });
    expect(result.trace).toEqual({ format: "unified-diff" });
    expect(await text("doc.md")).toBe("INTRO\n*** Begin Patch\nend");
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

describe("apply_patch accepts what Codex accepts", () => {
  it("takes a patch wrapped in the heredoc models emit: <<EOF, <<'EOF', <<\"EOF\", apply_patch <<'PATCH'", async () => {
    const body = (name: string) => patch(`*** Add File: ${name}`, `+${name}`);
    await apply(`<<EOF\n${body("a.txt")}\nEOF\n`);
    await apply(`<<'EOF'\n${body("b.txt")}\nEOF`);
    await apply(`<<"EOF"\n${body("c.txt")}\nEOF`);
    await apply(`apply_patch <<'PATCH'\n${body("d.txt")}\nPATCH\n`);
    await apply(`applypatch <<EOF\n${body("e.txt")}\nEOF`);
    for (const name of ["a", "b", "c", "d", "e"]) expect(await text(`${name}.txt`)).toBe(`${name}.txt\n`);
  });

  it("resolves paths inside the folder of a `cd dir && apply_patch <<'EOF'` wrapper, still inside the workspace", async () => {
    await put("pkg/src/a.ts", "one\n");
    const d = await apply(
      `cd pkg && apply_patch <<'EOF'\n${patch("*** Update File: src/a.ts", "*** Move to: src/b.ts", "@@", "-one", "+two")}\nEOF`,
    );
    expect(await text("pkg/src/b.ts")).toBe("two\n");
    expect(d.fileChanges).toEqual([
      { path: "pkg/src/a.ts", operation: "move", movePath: "pkg/src/b.ts", linesAdded: 1, linesRemoved: 1 },
    ]);
    const escape = `cd .. && apply_patch <<'EOF'\n${patch("*** Add File: x.txt", "+x")}\nEOF`;
    expect(errorOf(await h.call("apply_patch", { patch: escape }))).toBe("Path escapes workspace root: ../x.txt");
  });

  it("allows whitespace around every marker line", async () => {
    await put("u.txt", "old\n");
    await put("m.txt", "move me\n");
    await put("gone.txt", "bye\n");
    await apply(
      [
        "  *** Begin Patch  ",
        "\t*** Add File: new.txt ",
        "+fresh",
        "  *** Update File: u.txt",
        "@@",
        "-old",
        "+new",
        "\t*** End of File",
        "\t*** Delete File: gone.txt\t",
        " *** Update File: m.txt",
        "  *** Move to: moved.txt  ",
        "@@",
        "-move me",
        "+moved",
        " *** End Patch ",
      ].join("\n"),
    );
    expect(await text("new.txt")).toBe("fresh\n");
    expect(await text("u.txt")).toBe("new\n");
    expect(await text("moved.txt")).toBe("moved\n");
    await expect(stat(file("gone.txt"))).rejects.toThrow();
    await expect(stat(file("m.txt"))).rejects.toThrow();
  });

  it("reads a line starting with a space inside an update as context, even one that looks like a marker (as Codex)", async () => {
    await put("doc.md", "Example:\n*** Update File: x\nend\n");
    await apply(patch("*** Update File: doc.md", "@@", " Example:", " *** Update File: x", "-end", "+END"));
    expect(await text("doc.md")).toBe("Example:\n*** Update File: x\nEND\n");
  });

  it("finds an ASCII hunk in a file with typographic punctuation, keeping the file's own context text", async () => {
    const typeset = "title — “quoted” and it’s\u00a0fine\n–flag\nlast\n";
    await put("t.txt", typeset);
    await apply(patch("*** Update File: t.txt", "@@", ` title - "quoted" and it's fine`, "--flag", "+--flag", " last"));
    expect(await text("t.txt")).toBe("title — “quoted” and it’s\u00a0fine\n--flag\nlast\n");
    // An anchor line is found the same way.
    await apply(patch("*** Update File: t.txt", `@@ title - "quoted" and it's fine`, "-last", "+LAST"));
    expect(await text("t.txt")).toBe("title — “quoted” and it’s\u00a0fine\n--flag\nLAST\n");
  });

  it("prefers an exact match later in the file to a fuzzy one earlier", async () => {
    await put("f.txt", "a — b\nx\na - b\nx\n");
    await apply(patch("*** Update File: f.txt", "@@", " a - b", "-x", "+y"));
    expect(await text("f.txt")).toBe("a — b\nx\na - b\ny\n");
    await put("g.txt", "keep  \nx\nkeep\nx\n");
    await apply(patch("*** Update File: g.txt", "@@", " keep", "-x", "+y"));
    expect(await text("g.txt")).toBe("keep  \nx\nkeep\ny\n");
  });

  it("narrows the search with several @@ anchor lines in a row", async () => {
    await put("c.py", "class A:\n  def f():\n    return 1\nclass B:\n  def f():\n    return 1\n");
    await apply(patch("*** Update File: c.py", "@@ class B:", "@@   def f():", "-    return 1", "+    return 2"));
    expect(await text("c.py")).toBe("class A:\n  def f():\n    return 1\nclass B:\n  def f():\n    return 2\n");
  });

  it("moves onto an existing file, replacing it (Codex fixture 010)", async () => {
    await put("a.txt", "from\n");
    await put("dir/b.txt", "existing\n");
    const d = await apply(patch("*** Update File: a.txt", "*** Move to: dir/b.txt", "@@", "-from", "+new"));
    expect(await text("dir/b.txt")).toBe("new\n");
    await expect(stat(file("a.txt"))).rejects.toThrow();
    expect(d.fileChanges).toEqual([
      { path: "a.txt", operation: "move", movePath: "dir/b.txt", linesAdded: 1, linesRemoved: 1 },
    ]);
  });

  it("keeps a moved file's own permissions when it replaces another", async () => {
    await put("run.sh", "echo a\n");
    await put("dest.sh", "old\n");
    await chmod(file("run.sh"), 0o755);
    await chmod(file("dest.sh"), 0o644);
    await apply(patch("*** Update File: run.sh", "*** Move to: dest.sh", "@@", "-echo a", "+echo b"));
    expect((await stat(file("dest.sh"))).mode & 0o777).toBe(0o755);
  });

  it("adds over an existing file, replacing it and counting its lines as removed (Codex fixture 011)", async () => {
    await put("a.txt", "one\ntwo\n");
    const d = await apply(patch("*** Add File: a.txt", "+x"));
    expect(await text("a.txt")).toBe("x\n");
    expect(d.fileChanges).toEqual([{ path: "a.txt", operation: "add", linesAdded: 1, linesRemoved: 2 }]);
  });

  it("ends an updated file with a newline, as Codex does, unless an End of File hunk keeps it without", async () => {
    await put("n.txt", "a\nb");
    await apply(patch("*** Update File: n.txt", "@@", "-b", "+B"));
    expect(await text("n.txt")).toBe("a\nB\n");
    await put("e.txt", "a\nb");
    await apply(patch("*** Update File: e.txt", "@@", "-b", "+B", "*** End of File"));
    expect(await text("e.txt")).toBe("a\nB");
  });

  it("stays atomic with the new leniencies: a later failure undoes an overwrite and a move onto a file", async () => {
    await put("a.txt", "a\n");
    await put("b.txt", "b\n");
    await put("c.txt", "c\n");
    const result = await h.call("apply_patch", {
      patch: patch(
        "*** Add File: a.txt",
        "+replaced",
        "*** Update File: b.txt",
        "*** Move to: c.txt",
        "@@",
        "-b",
        "+B",
        "*** Update File: a.txt",
        "@@",
        "-not there",
        "+x",
      ),
    });
    expect(errorOf(result)).toMatch(/^Failed to locate hunk in a\.txt/);
    expect([await text("a.txt"), await text("b.txt"), await text("c.txt")]).toEqual(["a\n", "b\n", "c\n"]);
  });
});
