import { createHash } from "node:crypto";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { FILE_PREVIEW_MAX_BYTES } from "@berth/protocol";
import { Workspace } from "../workspace/workspace";
import { HashParamsError, firstChanged, hashFiles } from "./hash-files";

let root: string;
let workspace: Workspace;
beforeEach(async () => {
  root = await mkdtemp(path.join(tmpdir(), "berth-hash-files-"));
  workspace = new Workspace(root);
});
afterEach(async () => rm(root, { recursive: true, force: true }));

const sha = (text: string) => createHash("sha256").update(text).digest("hex");

describe("files.hash", () => {
  it("hashes each path as asked, says which are absent, and previews one file's start", async () => {
    await writeFile(path.join(root, "s.py"), "print(1)\n");
    await writeFile(path.join(root, "big.txt"), "x".repeat(FILE_PREVIEW_MAX_BYTES + 10));
    const result = await hashFiles(workspace, { paths: ["s.py", "missing.txt", "big.txt"], preview: "big.txt" });
    expect(result.files).toEqual([
      { path: "s.py", sha256: sha("print(1)\n"), bytes: 9 },
      { path: "missing.txt", sha256: null, bytes: null, note: "absent" },
      { path: "big.txt", sha256: sha("x".repeat(FILE_PREVIEW_MAX_BYTES + 10)), bytes: FILE_PREVIEW_MAX_BYTES + 10 },
    ]);
    expect(result.preview).toEqual({ path: "big.txt", text: "x".repeat(FILE_PREVIEW_MAX_BYTES), truncated: true });
  });

  it("refuses a path outside the workspace, naming it", async () => {
    await expect(hashFiles(workspace, { paths: ["../etc/passwd"] })).rejects.toThrow(HashParamsError);
    await expect(hashFiles(workspace, { paths: ["../etc/passwd"] })).rejects.toThrow(
      'files.hash: paths must resolve inside the workspace (got "../etc/passwd")',
    );
  });

  it("names the first file that changed since approval, absent files included", async () => {
    await writeFile(path.join(root, "a.txt"), "v2");
    expect(await firstChanged(workspace, "edit", { "a.txt": sha("v2"), "new.txt": null })).toBeUndefined();
    expect(await firstChanged(workspace, "edit", { "a.txt": sha("v1") })).toBe(
      `edit: a.txt changed since approval (approved sha256 ${sha("v1")}, now ${sha("v2")})`,
    );
    await writeFile(path.join(root, "new.txt"), "x");
    expect(await firstChanged(workspace, "write_file", { "new.txt": null })).toBe(
      `write_file: new.txt changed since approval (approved sha256 absent, now ${sha("x")})`,
    );
  });
});
