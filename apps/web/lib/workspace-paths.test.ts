import { execFileSync } from "node:child_process";
import { mkdtempSync, readdirSync, writeFileSync, existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  checkWorkspacePath,
  fromBase64,
  mkdirCommand,
  moveCommand,
  removeCommand,
  shellQuote,
  toBase64,
} from "./workspace-paths";

const sh = (cwd: string, command: string) =>
  execFileSync("sh", ["-c", command], { cwd, encoding: "utf8", stdio: "pipe" });

describe("checkWorkspacePath", () => {
  it("refuses paths that leave the workspace, naming the field and the value", () => {
    expect(() => checkWorkspacePath("../etc/passwd")).toThrow('path may not contain "..": "../etc/passwd"');
    expect(() => checkWorkspacePath("/etc/passwd", "to")).toThrow(
      'to must be relative to the workspace: "/etc/passwd"',
    );
    expect(() => checkWorkspacePath("a//b")).toThrow("empty folder name");
    expect(() => checkWorkspacePath("  ")).toThrow("path is empty");
  });

  it("keeps names with spaces and quotes, drops ./ and a trailing slash", () => {
    expect(checkWorkspacePath('./my dir/it\'s "x".txt')).toBe('my dir/it\'s "x".txt');
    expect(checkWorkspacePath("folder/")).toBe("folder");
  });
});

describe("the commands, run by a real sh", () => {
  it("mkdir, mv and rm work on names with spaces, quotes, $ and a leading dash", () => {
    const root = mkdtempSync(join(tmpdir(), "workspace-paths-"));
    sh(root, mkdirCommand(`-odd $HOME 'dir' "x"`));
    expect(readdirSync(root)).toEqual([`-odd $HOME 'dir' "x"`]);
    writeFileSync(join(root, `-odd $HOME 'dir' "x"`, "a b.txt"), "hi");
    sh(root, moveCommand(`-odd $HOME 'dir' "x"/a b.txt`, `new place/it's.txt`));
    expect(existsSync(join(root, "new place", "it's.txt"))).toBe(true);
    sh(root, removeCommand(`-odd $HOME 'dir' "x"`));
    expect(readdirSync(root).sort()).toEqual(["new place"]);
  });

  it("a move onto an existing name fails and changes nothing", () => {
    const root = mkdtempSync(join(tmpdir(), "workspace-paths-"));
    writeFileSync(join(root, "a.txt"), "a");
    writeFileSync(join(root, "b.txt"), "b");
    expect(() => sh(root, moveCommand("a.txt", "b.txt"))).toThrow(/Already exists: b.txt/);
    expect(readdirSync(root).sort()).toEqual(["a.txt", "b.txt"]);
  });

  it("refuses moving a folder into itself and deleting the root", () => {
    expect(() => moveCommand("src", "src/inner/src")).toThrow("Cannot move src into itself (src/inner/src)");
    expect(() => removeCommand(".")).toThrow("Refusing to delete the workspace root");
  });

  it("shellQuote survives a round trip through sh", () => {
    const value = `it's "$(echo no)" \`x\` \\ end`;
    expect(sh(tmpdir(), `printf %s ${shellQuote(value)}`)).toBe(value);
  });
});

describe("base64", () => {
  it("round-trips every byte value and more than one slice", () => {
    const bytes = new Uint8Array(70_000).map((_, i) => i % 256);
    const encoded = toBase64(bytes);
    expect(encoded).toBe(Buffer.from(bytes).toString("base64"));
    expect(fromBase64(encoded)).toEqual(bytes);
  });
});
