import { createHash } from "node:crypto";
import { chmod, mkdir, readFile, readdir, stat, symlink, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createToolHarness, detailsOf, errorOf, type ToolHarness } from "../test-support/tool-harness";

let h: ToolHarness;
beforeEach(async () => {
  h = await createToolHarness();
});
afterEach(() => h.cleanup());

const file = (rel: string) => path.join(h.root, rel);

describe("write_file", () => {
  it("creates parent folders and reports what it did", async () => {
    const d = detailsOf(await h.call("write_file", { path: "a/b/c.txt", content: "héllo\n" }));
    expect(d).toEqual({
      path: "a/b/c.txt",
      mode: "overwrite",
      created: true,
      appended: false,
      bytesWritten: 7,
      sha256: createHash("sha256").update("héllo\n").digest("hex"),
    });
    expect(await readFile(file("a/b/c.txt"), "utf8")).toBe("héllo\n");
  });

  it("overwrites atomically, keeps the file's permissions and leaves no temp files", async () => {
    await writeFile(file("x.sh"), "old");
    await chmod(file("x.sh"), 0o755);
    const d = detailsOf(await h.call("write_file", { path: "x.sh", content: "new" }));
    expect(d).toMatchObject({ created: false, appended: false });
    expect(await readFile(file("x.sh"), "utf8")).toBe("new");
    expect((await stat(file("x.sh"))).mode & 0o777).toBe(0o755);
    expect(await readdir(h.root)).toEqual(["x.sh"]);
  });

  it("create refuses an existing file and changes nothing", async () => {
    await writeFile(file("x.txt"), "keep");
    expect(errorOf(await h.call("write_file", { path: "x.txt", content: "new", mode: "create" }))).toBe(
      "File already exists: x.txt",
    );
    expect(await readFile(file("x.txt"), "utf8")).toBe("keep");
    expect(detailsOf(await h.call("write_file", { path: "y.txt", content: "n", mode: "create" }))).toMatchObject({
      created: true,
    });
  });

  it("append adds to the end and creates a missing file", async () => {
    await writeFile(file("log.txt"), "a\n");
    expect(detailsOf(await h.call("write_file", { path: "log.txt", content: "b\n", mode: "append" }))).toMatchObject({
      appended: true,
      bytesWritten: 2,
    });
    expect(await readFile(file("log.txt"), "utf8")).toBe("a\nb\n");
    expect(detailsOf(await h.call("write_file", { path: "new.txt", content: "c", mode: "append" }))).toMatchObject({
      created: true,
      appended: false,
    });
  });

  it("refuses an unknown mode with the spec's text", async () => {
    expect(errorOf(await h.call("write_file", { path: "x", content: "", mode: "truncate" }))).toBe(
      "Unsupported write mode: truncate",
    );
    await expect(stat(file("x"))).rejects.toThrow();
  });

  it("writes base64 content as bytes and refuses malformed base64", async () => {
    await h.call("write_file", {
      path: "b.bin",
      content: Buffer.from([0, 255, 1]).toString("base64"),
      encoding: "base64",
    });
    expect(await readFile(file("b.bin"))).toEqual(Buffer.from([0, 255, 1]));
    expect(errorOf(await h.call("write_file", { path: "c.bin", content: "!!!", encoding: "base64" }))).toBe(
      "content: not valid base64",
    );
  });

  it("refuses content over 8 MiB", async () => {
    const result = await h.call("write_file", { path: "big", content: "x".repeat(8 * 1024 * 1024 + 1) });
    expect(errorOf(result)).toBe("content: 8388609 bytes is over the limit of 8388608 bytes (8 MiB)");
    await expect(stat(file("big"))).rejects.toThrow();
  });

  it("refuses writes inside .git, escapes, and through a dangling symlink that points outside", async () => {
    await mkdir(file(".git/hooks"), { recursive: true });
    await symlink("/tmp/berth-should-not-exist-" + process.pid, file("dangling"));
    expect(errorOf(await h.call("write_file", { path: ".git/hooks/pre-commit", content: "x" }))).toBe(
      "Writes under .git are refused: .git/hooks/pre-commit",
    );
    expect(errorOf(await h.call("write_file", { path: ".git/config", content: "x" }))).toBe(
      "Writes under .git are refused: .git/config",
    );
    expect(errorOf(await h.call("write_file", { path: "../evil", content: "x" }))).toBe(
      "Path escapes workspace root: ../evil",
    );
    expect(errorOf(await h.call("write_file", { path: "dangling", content: "x" }))).toBe(
      "Path escapes workspace root: dangling",
    );
    await expect(stat("/tmp/berth-should-not-exist-" + process.pid)).rejects.toThrow();
  });

  it("refuses writing over a directory", async () => {
    await mkdir(file("d"));
    expect(errorOf(await h.call("write_file", { path: "d", content: "x" }))).toBe("Path is a directory: d");
  });

  it("refuses strings that are not valid UTF-8, naming the field", async () => {
    expect(errorOf(await h.call("write_file", { path: "a", content: "bad \ud800 surrogate" }))).toBe(
      "Invalid arguments for write_file: content: contains invalid UTF-8",
    );
    expect(errorOf(await h.call("write_file", { path: "a", content: "x\uFFFDy" }, { lineWasInvalidUtf8: true }))).toBe(
      "Invalid arguments for write_file: content: contains invalid UTF-8",
    );
    await expect(stat(file("a"))).rejects.toThrow();
  });

  describe("expectedSha256", () => {
    const sha = (text: string) => createHash("sha256").update(text).digest("hex");

    it("writes when the file still has the bytes the writer saw, and returns the new hash", async () => {
      await writeFile(file("a.txt"), "seen");
      const d = detailsOf(
        await h.call("write_file", { path: "a.txt", content: "mine", expectedSha256: sha("seen").toUpperCase() }),
      );
      expect(d).toMatchObject({ created: false, sha256: sha("mine") });
      expect(await readFile(file("a.txt"), "utf8")).toBe("mine");
    });

    it("fails with conflict naming the path and both hashes, and changes nothing", async () => {
      await writeFile(file("a.txt"), "theirs");
      const result = await h.call("write_file", { path: "a.txt", content: "mine", expectedSha256: sha("seen") });
      expect(result.error?.code).toBe("conflict");
      expect(errorOf(result)).toBe(
        `a.txt changed on disk: expectedSha256 ${sha("seen")}, actual sha256 ${sha("theirs")}; nothing was written`,
      );
      expect(result.details).toEqual({ path: "a.txt", expectedSha256: sha("seen"), actualSha256: sha("theirs") });
      expect(await readFile(file("a.txt"), "utf8")).toBe("theirs");
      expect(await readdir(h.root)).toEqual(["a.txt"]);
    });

    it("a file deleted since it was read is a conflict (actual: absent); null means no check", async () => {
      const gone = await h.call("write_file", { path: "gone.txt", content: "x", expectedSha256: sha("seen") });
      expect(gone.error?.code).toBe("conflict");
      expect(errorOf(gone)).toContain("actual sha256 absent");
      await expect(stat(file("gone.txt"))).rejects.toThrow();
      await writeFile(file("b.txt"), "theirs");
      expect(
        detailsOf(await h.call("write_file", { path: "b.txt", content: "m", expectedSha256: null })),
      ).toMatchObject({
        bytesWritten: 1,
      });
    });

    it("refuses a value that is not a sha256, naming the field", async () => {
      await writeFile(file("a.txt"), "keep");
      expect(errorOf(await h.call("write_file", { path: "a.txt", content: "x", expectedSha256: "abc" }))).toBe(
        'Invalid arguments for write_file: expectedSha256: must be 64 hex digits (the sha256 read_file returned) (got "abc")',
      );
      expect(await readFile(file("a.txt"), "utf8")).toBe("keep");
    });
  });
});
