import { createHash } from "node:crypto";
import { chmod, mkdir, readFile, stat, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createToolHarness, detailsOf, errorOf, type ToolHarness } from "../test-support/tool-harness";

let h: ToolHarness;
beforeEach(async () => {
  h = await createToolHarness();
});
afterEach(() => h.cleanup());

const file = (rel: string) => path.join(h.root, rel);

describe("edit", () => {
  it("replaces a unique occurrence literally and keeps the file mode", async () => {
    await writeFile(file("a.ts"), "const a = 1;\nconst b = 2;\n");
    await chmod(file("a.ts"), 0o600);
    expect(detailsOf(await h.call("edit", { path: "a.ts", old_string: "b = 2", new_string: "b = '$&'" }))).toEqual({
      path: "a.ts",
      replacements: 1,
      sha256: createHash("sha256").update("const a = 1;\nconst b = '$&';\n").digest("hex"),
    });
    expect(await readFile(file("a.ts"), "utf8")).toBe("const a = 1;\nconst b = '$&';\n");
    expect((await stat(file("a.ts"))).mode & 0o777).toBe(0o600);
  });

  it("reports errors in the spec's order", async () => {
    await writeFile(file("a.txt"), "x x\n");
    await mkdir(file("dir"));
    // empty old_string wins over everything, even a missing file
    expect(errorOf(await h.call("edit", { path: "missing", old_string: "", new_string: "" }))).toBe(
      "old_string must not be empty",
    );
    expect(errorOf(await h.call("edit", { path: "missing", old_string: "a", new_string: "a" }))).toBe(
      "old_string and new_string are identical: nothing to change",
    );
    expect(errorOf(await h.call("edit", { path: "missing", old_string: "a", new_string: "b" }))).toBe(
      "File not found: missing",
    );
    expect(errorOf(await h.call("edit", { path: "dir", old_string: "a", new_string: "b" }))).toBe(
      "Path is a directory: dir",
    );
    expect(errorOf(await h.call("edit", { path: "a.txt", old_string: "y", new_string: "z" }))).toBe(
      "old_string not found in a.txt. Ensure whitespace and indentation match exactly.",
    );
    expect(errorOf(await h.call("edit", { path: "a.txt", old_string: "x", new_string: "z" }))).toBe(
      "old_string is not unique: found 2 occurrences in a.txt. Add surrounding context or set replaceAll=true.",
    );
    expect(await readFile(file("a.txt"), "utf8")).toBe("x x\n");
  });

  it("replaceAll replaces every occurrence and counts them", async () => {
    await writeFile(file("a.txt"), "x x x\n");
    expect(
      detailsOf(await h.call("edit", { path: "a.txt", old_string: "x", new_string: "yy", replaceAll: true })),
    ).toEqual({ path: "a.txt", replacements: 3, sha256: createHash("sha256").update("yy yy yy\n").digest("hex") });
    expect(await readFile(file("a.txt"), "utf8")).toBe("yy yy yy\n");
  });

  it("matches LF old_string in a CRLF file and keeps CRLF", async () => {
    await writeFile(file("w.txt"), "one\r\ntwo\r\nthree\r\n");
    await h.call("edit", { path: "w.txt", old_string: "one\ntwo\n", new_string: "uno\ndos\n" });
    expect(await readFile(file("w.txt"), "utf8")).toBe("uno\r\ndos\r\nthree\r\n");
    await h.call("edit", { path: "w.txt", old_string: "three", new_string: "tres\ncuatro" });
    expect(await readFile(file("w.txt"), "utf8")).toBe("uno\r\ndos\r\ntres\r\ncuatro\r\n");
  });

  it("refuses edits inside .git", async () => {
    await mkdir(file(".git"));
    await writeFile(file(".git/config"), "a");
    expect(errorOf(await h.call("edit", { path: ".git/config", old_string: "a", new_string: "b" }))).toBe(
      "Writes under .git are refused: .git/config",
    );
  });

  it("with expectedSha256: edits a file that still matches, and a changed one fails with conflict, untouched", async () => {
    const sha = (text: string) => createHash("sha256").update(text).digest("hex");
    await writeFile(file("a.txt"), "one two\n");
    expect(
      detailsOf(
        await h.call("edit", { path: "a.txt", old_string: "two", new_string: "2", expectedSha256: sha("one two\n") }),
      ),
    ).toEqual({ path: "a.txt", replacements: 1, sha256: sha("one 2\n") });
    const stale = await h.call("edit", {
      path: "a.txt",
      old_string: "one",
      new_string: "1",
      expectedSha256: sha("one two\n"),
    });
    expect(stale.error?.code).toBe("conflict");
    expect(errorOf(stale)).toBe(
      `a.txt changed on disk: expectedSha256 ${sha("one two\n")}, actual sha256 ${sha("one 2\n")}; nothing was written`,
    );
    expect(await readFile(file("a.txt"), "utf8")).toBe("one 2\n");
  });
});
