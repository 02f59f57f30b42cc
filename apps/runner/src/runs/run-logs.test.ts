import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { RunLogs, readLog } from "./run-logs";

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

function tempDataDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "berth-logs-"));
  dirs.push(dir);
  return dir;
}

describe("RunLogs", () => {
  it("appends per stream and combined, returning byte offsets, readable back from any offset", () => {
    const dataDir = tempDataDir();
    const logs = new RunLogs(RunLogs.dirFor(dataDir, "run_1"));
    logs.open();
    expect(logs.append("stdout", Buffer.from("héllo\n"))).toEqual({ offset: 0, combinedOffset: 0 });
    expect(logs.append("stderr", Buffer.from("oops\n"))).toEqual({ offset: 0, combinedOffset: 7 });
    expect(logs.append("stdout", Buffer.from("bye\n"))).toEqual({ offset: 7, combinedOffset: 12 });
    logs.close();
    expect(readLog(dataDir, "run_1", "stdout", 7, 100).content.toString()).toBe("bye\n");
    expect(readLog(dataDir, "run_1", "combined", 0, 1000).content.toString()).toBe("héllo\noops\nbye\n");
    expect(readLog(dataDir, "run_1", "stdout", 1000, 10)).toMatchObject({ size: 11 });
  });

  it("hashes each stream as written, matching a hash of the file", () => {
    const dataDir = tempDataDir();
    const logs = new RunLogs(RunLogs.dirFor(dataDir, "run_2"));
    logs.open();
    for (let i = 0; i < 100; i++) logs.append(i % 3 ? "stdout" : "stderr", Buffer.from(`chunk ${i}\n`));
    const digests = logs.digests();
    logs.close();
    for (const d of digests) {
      const file = fs.readFileSync(RunLogs.pathFor(dataDir, "run_2", d.name));
      expect(d).toEqual({ name: d.name, sha256: crypto.createHash("sha256").update(file).digest("hex"), bytes: file.length });
    }
  });

  it("reading a run with no logs gives empty content, not an error", () => {
    expect(readLog(tempDataDir(), "run_missing", "stdout", 0, 10)).toEqual({ content: Buffer.alloc(0), size: 0 });
  });
});
