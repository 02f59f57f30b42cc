import { execFileSync } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { TarToZip } from "./tar-to-zip";
import { ZipLimitError, ZipWriter } from "./zip-writer";

const root = fs.mkdtempSync(path.join(os.tmpdir(), "berth-zip-"));
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

/** A tree with what tar has to say in more than one way: a long name, a symlink, an empty file, binary bytes. */
function makeTree(dir: string): Record<string, Buffer> {
  const long = `${"deep-folder-name-".repeat(5)}x/${"a-file-with-a-long-name-".repeat(5)}ü.txt`;
  const files: Record<string, Buffer> = {
    "proj/hello.txt": Buffer.from("hello\n"),
    "proj/empty": Buffer.alloc(0),
    "proj/blob.bin": crypto.randomBytes(200_003),
    [`proj/${long}`]: Buffer.from("long name\n"),
  };
  for (const [name, bytes] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
    fs.writeFileSync(path.join(dir, name), bytes);
  }
  fs.chmodSync(path.join(dir, "proj/hello.txt"), 0o755);
  fs.symlinkSync("hello.txt", path.join(dir, "proj/link"));
  return files;
}

/** The tar through TarToZip in chunks of awkward sizes, as the agent's output arrives. */
async function convert(tar: Buffer, chunk = 997): Promise<Buffer> {
  const out: Buffer[] = [];
  const transform = new TarToZip();
  transform.on("data", (b: Buffer) => out.push(b));
  const done = new Promise<void>((resolve, reject) => {
    transform.on("end", resolve);
    transform.on("error", reject);
  });
  for (let at = 0; at < tar.length; at += chunk) transform.write(tar.subarray(at, at + chunk));
  transform.end();
  await done;
  return Buffer.concat(out);
}

/** What python3's zipfile reads back: name → [sha256, unix mode, crc ok]. */
function pythonList(zip: string): Record<string, [string, number]> {
  const script = [
    "import sys, zipfile, hashlib, json",
    "z = zipfile.ZipFile(sys.argv[1])",
    "assert z.testzip() is None",
    "print(json.dumps({i.filename: [hashlib.sha256(z.read(i)).hexdigest(), i.external_attr >> 16] for i in z.infolist()}))",
  ].join("\n");
  return JSON.parse(execFileSync("python3", ["-c", script, zip], { encoding: "utf8" })) as Record<string, [string, number]>;
}

const sha = (b: Buffer) => crypto.createHash("sha256").update(b).digest("hex");

describe("TarToZip", () => {
  for (const format of ["gnu", "pax"] as const) {
    it(`turns a ${format} tar into a zip that python3 zipfile and unzip read back byte for byte`, async () => {
      const dir = path.join(root, format);
      const files = makeTree(dir);
      const tar = execFileSync("tar", [`--format=${format}`, "--hard-dereference", "-cf", "-", "--", "./proj"], { cwd: dir, maxBuffer: 64 << 20 });
      const zipFile = path.join(root, `${format}.zip`);
      fs.writeFileSync(zipFile, await convert(tar));

      const listed = pythonList(zipFile);
      for (const [name, bytes] of Object.entries(files)) expect(listed[name]?.[0], name).toBe(sha(bytes));
      expect(listed["proj/"]?.[1]).toBe(0o040000 | fs.statSync(path.join(dir, "proj")).mode & 0o7777);
      expect(listed["proj/hello.txt"]?.[1]).toBe(0o100755);
      expect(listed["proj/link"]).toEqual([sha(Buffer.from("hello.txt")), 0o120777]);
      expect(Object.keys(listed).some((n) => n === "" || n.startsWith("./"))).toBe(false);

      // unzip checks every CRC and restores the link as a link.
      expect(execFileSync("unzip", ["-t", zipFile], { encoding: "utf8" })).toMatch(/No errors detected/);
      const out = path.join(root, `${format}-out`);
      execFileSync("unzip", ["-q", zipFile, "-d", out]);
      expect(fs.readlinkSync(path.join(out, "proj/link"))).toBe("hello.txt");
      expect(fs.readFileSync(path.join(out, "proj/blob.bin")).equals(files["proj/blob.bin"]!)).toBe(true);
    });
  }

  it("fails on a tar cut short instead of finishing a zip that looks whole", async () => {
    const dir = path.join(root, "cut");
    makeTree(dir);
    const tar = execFileSync("tar", ["-cf", "-", "proj"], { cwd: dir, maxBuffer: 64 << 20 });
    await expect(convert(tar.subarray(0, 100_000))).rejects.toThrow(/tar ended early: \d+ bytes of an entry missing/);
  });

  it("refuses a hard link it cannot copy", async () => {
    const dir = path.join(root, "hard");
    makeTree(dir);
    fs.linkSync(path.join(dir, "proj/hello.txt"), path.join(dir, "proj/again.txt"));
    const tar = execFileSync("tar", ["-cf", "-", "proj"], { cwd: dir });
    await expect(convert(tar)).rejects.toThrow(/is a hard link; .*--hard-dereference/);
  });
});

describe("ZipWriter", () => {
  it("refuses an archive past its byte or entry limit, naming the limit", () => {
    const small = new ZipWriter(() => undefined, { maxBytes: 1000, maxEntries: 2 });
    small.startEntry({ name: "a", kind: "file", mode: 0o644, mtime: new Date() });
    expect(() => small.write(Buffer.alloc(2000))).toThrow(ZipLimitError);
    expect(() => small.write(Buffer.alloc(2000))).toThrow(/would pass 1000 bytes/);
    const few = new ZipWriter(() => undefined, { maxBytes: 1e6, maxEntries: 2 });
    few.startEntry({ name: "a", kind: "file", mode: 0o644, mtime: new Date() });
    few.startEntry({ name: "b", kind: "file", mode: 0o644, mtime: new Date() });
    expect(() => few.startEntry({ name: "c", kind: "file", mode: 0o644, mtime: new Date() })).toThrow(/more than 2 entries .* at "c"/);
  });
});
