import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { LogReader, RunLogs, logSize, readLog } from "./run-logs";

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
  it("appends per stream, the combined view derived from them, returning byte offsets, readable back from any offset", async () => {
    const dataDir = tempDataDir();
    const logs = new RunLogs(RunLogs.dirFor(dataDir, "run_1"));
    expect(logs.append("stdout", Buffer.from("héllo\n"))).toEqual({ offset: 0, combinedOffset: 0 });
    expect(logs.append("stderr", Buffer.from("oops\n"))).toEqual({ offset: 0, combinedOffset: 7 });
    expect(logs.append("stdout", Buffer.from("bye\n"))).toEqual({ offset: 7, combinedOffset: 12 });
    await logs.close();
    expect(readLog(dataDir, "run_1", "stdout", 7, 100).content.toString()).toBe("bye\n");
    expect(readLog(dataDir, "run_1", "combined", 0, 1000).content.toString()).toBe("héllo\noops\nbye\n");
    expect(readLog(dataDir, "run_1", "stdout", 1000, 10)).toMatchObject({ size: 11 });
  });

  it("resumes another runner's logs (failover): offsets, the combined view and digests go on from what the files hold", async () => {
    const dataDir = tempDataDir();
    const dir = RunLogs.dirFor(dataDir, "run_resumed");
    const first = new RunLogs(dir);
    first.append("stdout", Buffer.from("one\n"));
    first.append("stderr", Buffer.from("warn\n"));
    await first.close();
    const logs = RunLogs.resume(dir);
    expect(logs.append("stdout", Buffer.from("two\n"))).toEqual({ offset: 4, combinedOffset: 9 });
    await logs.flushed();
    expect(logSize(dataDir, "run_resumed", "stdout")).toBe(8);
    const digests = logs.digests();
    await logs.close();
    expect(readLog(dataDir, "run_resumed", "combined", 0, 100).content.toString()).toBe("one\nwarn\ntwo\n");
    for (const d of digests) {
      const file = fs.readFileSync(RunLogs.pathFor(dataDir, "run_resumed", d.name));
      expect(d).toEqual({ name: d.name, sha256: crypto.createHash("sha256").update(file).digest("hex"), bytes: file.length });
    }
  });

  it("hashes each stream as written, matching a hash of the file", async () => {
    const dataDir = tempDataDir();
    const logs = new RunLogs(RunLogs.dirFor(dataDir, "run_2"));
    for (let i = 0; i < 100; i++) logs.append(i % 3 ? "stdout" : "stderr", Buffer.from(`chunk ${i}\n`));
    const digests = logs.digests();
    await logs.close();
    for (const d of digests) {
      const file = fs.readFileSync(RunLogs.pathFor(dataDir, "run_2", d.name));
      expect(d).toEqual({ name: d.name, sha256: crypto.createHash("sha256").update(file).digest("hex"), bytes: file.length });
    }
  });

  it("derives the combined log from the two streams: any range of it is the bytes in arrival order, and nothing is written twice", async () => {
    const dataDir = tempDataDir();
    const logs = new RunLogs(RunLogs.dirFor(dataDir, "run_3"));
    const arrived: Buffer[] = [];
    let seed = 7;
    const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31);
    for (let i = 0; i < 300; i++) {
      const chunk = Buffer.from(`${i % 5 ? "out" : "err"}${"é".repeat(next() % 40)}${i}\n`);
      logs.append(i % 5 ? "stdout" : "stderr", chunk);
      arrived.push(chunk);
    }
    await logs.close();
    const combined = Buffer.concat(arrived);
    expect(fs.readdirSync(logs.dir).sort()).toEqual(["stderr.log", "stdout.log", "times.idx"]);
    expect(logSize(dataDir, "run_3", "combined")).toBe(combined.length);
    expect(readLog(dataDir, "run_3", "combined", 0, combined.length + 10).content.equals(combined)).toBe(true);
    for (let n = 0; n < 200; n++) {
      const offset = next() % combined.length;
      const limit = 1 + (next() % 3000);
      expect(readLog(dataDir, "run_3", "combined", offset, limit).content.equals(combined.subarray(offset, offset + limit)), `offset ${offset} limit ${limit}`).toBe(true);
    }
    // A kept-open reader in small steps gives the same bytes.
    const reader = LogReader.open(dataDir, "run_3", "combined");
    const pieces: Buffer[] = [];
    for (let at = 0, got; (got = reader.read(at, Buffer.alloc(777))) > 0; at += got) pieces.push(readLog(dataDir, "run_3", "combined", at, got).content);
    reader.close();
    expect(Buffer.concat(pieces).equals(combined)).toBe(true);
  });

  // At once (the default) a chunk is announced before append returns; queued (with a sink) after its batch is written.
  for (const way of ["at once", "queued"] as const) {
    it(`announces each chunk once it is on disk, in order, and readers of a live run see only announced bytes (${way})`, async () => {
      const dataDir = tempDataDir();
      const sink = way === "queued" ? { store: async () => {}, end: () => {} } : undefined;
      const logs = new RunLogs(RunLogs.dirFor(dataDir, "run_4"), Date.now, sink);
      const seen: string[] = [];
      for (let i = 0; i < 50; i++)
        logs.append(i % 2 ? "stderr" : "stdout", Buffer.from(`c${i};`), ({ offset, combinedOffset }) => {
          seen.push(`${i}@${offset}/${combinedOffset}`);
          // What was just announced is readable, and nothing after it.
          const size = logSize(dataDir, "run_4", "combined");
          expect(size).toBe(combinedOffset + `c${i};`.length);
          expect(readLog(dataDir, "run_4", "combined", 0, 10_000).content.toString().endsWith(`c${i};`)).toBe(true);
        });
      expect(logSize(dataDir, "run_4", "combined")).toBe(way === "queued" ? 0 : 190);
      await logs.close();
      expect(seen).toHaveLength(50);
      expect(seen.slice(0, 4)).toEqual(["0@0/0", "1@0/3", "2@3/6", "3@3/9"]);
    });
  }

  it("reads a run from before the combined view was derived from its combined.log", () => {
    const dataDir = tempDataDir();
    const dir = RunLogs.dirFor(dataDir, "run_old");
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, "stdout.log"), "out\n");
    fs.writeFileSync(path.join(dir, "stderr.log"), "err\n");
    fs.writeFileSync(path.join(dir, "combined.log"), "err\nout\n");
    expect(readLog(dataDir, "run_old", "combined", 0, 100)).toEqual({ content: Buffer.from("err\nout\n"), size: 8 });
  });

  it("keeps bytes the index never covered (a runner that died between the writes) at the end of the combined view", async () => {
    const dataDir = tempDataDir();
    const logs = new RunLogs(RunLogs.dirFor(dataDir, "run_5"));
    logs.append("stdout", Buffer.from("one\n"));
    logs.append("stderr", Buffer.from("two\n"));
    await logs.close();
    fs.appendFileSync(path.join(logs.dir, "stdout.log"), "three\n");
    expect(readLog(dataDir, "run_5", "combined", 0, 100).content.toString()).toBe("one\ntwo\nthree\n");
    expect(readLog(dataDir, "run_5", "combined", 6, 100).content.toString()).toBe("o\nthree\n");
  });

  it("reading a run with no logs gives empty content, not an error", async () => {
    expect(readLog(tempDataDir(), "run_missing", "stdout", 0, 10)).toEqual({ content: Buffer.alloc(0), size: 0 });
  });
});
