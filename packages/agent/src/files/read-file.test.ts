import { createHash } from "node:crypto";
import { mkdir, symlink, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { ReadFileDetails } from "@berth/protocol";
import { createToolHarness, detailsOf, errorOf, type ToolHarness } from "../test-support/tool-harness";

let h: ToolHarness;
beforeEach(async () => {
  h = await createToolHarness();
});
afterEach(() => h.cleanup());

const read = async (args: Record<string, unknown>) => detailsOf<ReadFileDetails>(await h.call("read_file", args));

describe("read_file", () => {
  it("returns the whole file with line counts, keeping CRLF and the final newline", async () => {
    await writeFile(path.join(h.root, "a.txt"), "one\r\ntwo\r\nthree\r\n");
    const d = await read({ path: "a.txt" });
    expect(d.content).toBe("one\r\ntwo\r\nthree\r\n");
    expect(d).toMatchObject({ path: "a.txt", startLine: 1, endLine: 3, totalLines: 3, truncated: false });
    expect(d.nextStartLine).toBeUndefined();
  });

  it("clamps startLine below 1 and endLine past the end; endLine < startLine is empty", async () => {
    await writeFile(path.join(h.root, "a.txt"), "1\n2\n3\n4");
    expect((await read({ path: "a.txt", startLine: -5, endLine: 2 })).content).toBe("1\n2\n");
    const tail = await read({ path: "a.txt", startLine: 3, endLine: 99 });
    expect(tail.content).toBe("3\n4");
    expect(tail.endLine).toBe(4);
    expect(await read({ path: "a.txt", startLine: 3, endLine: 2 })).toMatchObject({
      content: "",
      startLine: 3,
      endLine: 2,
    });
    expect(await read({ path: "a.txt", startLine: 9 })).toMatchObject({
      content: "",
      startLine: 9,
      endLine: 4,
      totalLines: 4,
    });
  });

  it("stops at maxChars on a whole line and says where to continue", async () => {
    await writeFile(path.join(h.root, "a.txt"), "aaaa\nbbbb\ncccc\n");
    const d = await read({ path: "a.txt", maxChars: 12 });
    expect(d).toMatchObject({ content: "aaaa\nbbbb\n", endLine: 2, truncated: true, nextStartLine: 3 });
    const next = await read({ path: "a.txt", startLine: d.nextStartLine, maxChars: 12 });
    expect(next.content).toBe("cccc\n");
  });

  it("cuts a single line longer than maxChars instead of returning nothing", async () => {
    await writeFile(path.join(h.root, "long.txt"), "x".repeat(100) + "\nnext\n");
    const d = await read({ path: "long.txt", maxChars: 10 });
    expect(d.content).toBe("x".repeat(10));
    expect(d).toMatchObject({ truncated: true, nextStartLine: 2 });
  });

  it("refuses missing files, directories, binary and invalid UTF-8 with clear errors", async () => {
    await mkdir(path.join(h.root, "dir"));
    await writeFile(path.join(h.root, "bin"), Buffer.from([1, 0, 2]));
    await writeFile(path.join(h.root, "latin1"), Buffer.from([0x63, 0x61, 0x66, 0xe9]));
    expect(errorOf(await h.call("read_file", { path: "nope.txt" }))).toBe("File not found: nope.txt");
    expect(errorOf(await h.call("read_file", { path: "dir" }))).toBe("Path is a directory: dir");
    expect(errorOf(await h.call("read_file", { path: "bin" }))).toMatch(/^Binary file: bin/);
    expect(errorOf(await h.call("read_file", { path: "latin1" }))).toMatch(/^File is not valid UTF-8: latin1/);
  });

  it("returns binary and invalid UTF-8 files as base64 when asked", async () => {
    await writeFile(path.join(h.root, "bin"), Buffer.from([1, 0, 2, 255]));
    const d = await read({ path: "bin", encoding: "base64" });
    expect(Buffer.from(d.content, "base64")).toEqual(Buffer.from([1, 0, 2, 255]));
    expect(d.encoding).toBe("base64");
  });

  it("refuses files over 20 MiB", async () => {
    await writeFile(path.join(h.root, "big"), Buffer.alloc(20 * 1024 * 1024 + 1, 97));
    expect(errorOf(await h.call("read_file", { path: "big" }))).toBe(
      "File too large: big is 20971521 bytes (limit 20971520 bytes)",
    );
  });

  it("refuses paths that escape the root, by name and through symlinks", async () => {
    await symlink("/etc", path.join(h.root, "etc-link"));
    expect(errorOf(await h.call("read_file", { path: "../outside.txt" }))).toBe(
      "Path escapes workspace root: ../outside.txt",
    );
    expect(errorOf(await h.call("read_file", { path: "/etc/hostname" }))).toBe(
      "Path escapes workspace root: /etc/hostname",
    );
    expect(errorOf(await h.call("read_file", { path: "etc-link/hostname" }))).toBe(
      "Path escapes workspace root: etc-link/hostname",
    );
  });

  it("accepts absolute paths inside the root and symlinks that stay inside", async () => {
    await writeFile(path.join(h.root, "real.txt"), "hi\n");
    await symlink("real.txt", path.join(h.root, "link.txt"));
    expect((await read({ path: path.join(h.root, "real.txt") })).content).toBe("hi\n");
    expect((await read({ path: "link.txt" })).content).toBe("hi\n");
  });

  it("names the field and the bad value when arguments are wrong", async () => {
    expect(errorOf(await h.call("read_file", { path: 42 }))).toMatch(
      /^Invalid arguments for read_file: path: .*expected string.*\(got 42\)/,
    );
    expect(errorOf(await h.call("read_file", {}))).toBe(
      "Invalid arguments for read_file: path: required (expected string)",
    );
    expect(errorOf(await h.call("read_file", { path: "a\0b" }))).toMatch(/path: must not contain NUL bytes/);
    expect(errorOf(await h.call("read_file", { path: "a", maxChars: 0 }))).toMatch(
      /maxChars: must be at least 1 \(got 0\)/,
    );
    expect(errorOf(await h.call("read_file", { path: "a", maxChars: 1e12 }))).toMatch(/maxChars: must be at most/);
    expect(errorOf(await h.call("read_file", { path: "a", encoding: "latin1" }))).toMatch(/encoding: /);
  });

  it("returns the sha256 of the whole file's bytes, whatever range was read", async () => {
    const bytes = "1\n2\n3\n";
    await writeFile(path.join(h.root, "a.txt"), bytes);
    const whole = createHash("sha256").update(bytes).digest("hex");
    expect((await read({ path: "a.txt" })).sha256).toBe(whole);
    expect((await read({ path: "a.txt", startLine: 2, endLine: 2 })).sha256).toBe(whole);
    expect((await read({ path: "a.txt", encoding: "base64" })).sha256).toBe(whole);
  });
});
