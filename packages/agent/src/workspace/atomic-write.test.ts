import { mkdtemp, readFile, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { atomicWrite } from "./atomic-write";

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), "berth-atomic-"));
});
afterEach(() => rm(dir, { recursive: true, force: true }));

describe("atomicWrite beforeCommit", () => {
  it("runs with the new bytes in a temp file and the target still old, and a throw leaves the target and no temp", async () => {
    const target = path.join(dir, "f.txt");
    await writeFile(target, "old");
    let seen: { target: string; files: string[] } | undefined;
    const refused = atomicWrite(target, Buffer.from("new"), {
      beforeCommit: async () => {
        seen = { target: await readFile(target, "utf8"), files: (await readdir(dir)).sort() };
        // Another writer got in after the caller's first check: the precondition refuses at the last moment.
        throw new Error("changed meanwhile");
      },
    });
    await expect(refused).rejects.toThrow("changed meanwhile");
    expect(seen?.target).toBe("old");
    expect(seen?.files).toHaveLength(2);
    expect(await readFile(target, "utf8")).toBe("old");
    expect(await readdir(dir)).toEqual(["f.txt"]);

    await atomicWrite(target, Buffer.from("new"), { beforeCommit: async () => undefined });
    expect(await readFile(target, "utf8")).toBe("new");
  });
});
