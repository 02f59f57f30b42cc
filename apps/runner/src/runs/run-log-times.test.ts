import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { RunLogs, readLog } from "./run-logs";
import { RunLogTimes, readLogTimes } from "./run-log-times";

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

/** Logs whose clock reads `clock.now`, so each chunk's time is the test's to set. */
function openLogs() {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "berth-times-"));
  dirs.push(dataDir);
  const clock = { now: 1_700_000_000_000 };
  const logs = new RunLogs(RunLogs.dirFor(dataDir, "run_t"), () => clock.now);
  return { dataDir, dir: logs.dir, logs, clock };
}

describe("RunLogTimes", () => {
  it("records each chunk's arrival at its exact byte offset in every stream, stdout, stderr and combined", async () => {
    const { dataDir, dir, logs, clock } = openLogs();
    logs.append("stdout", Buffer.from("héllo\n")); // 7 bytes at t0
    clock.now += 250;
    logs.append("stderr", Buffer.from("oops\n")); // 5 bytes at t0+250
    clock.now += 1000;
    logs.append("stdout", Buffer.from("bye\n")); // at t0+1250
    await logs.close();
    const t0 = 1_700_000_000_000;
    expect(readLogTimes(dir, "combined", 0, Infinity)).toEqual([[0, t0], [7, t0 + 250], [12, t0 + 1250]]);
    expect(readLogTimes(dir, "stdout", 0, Infinity)).toEqual([[0, t0], [7, t0 + 1250]]);
    expect(readLogTimes(dir, "stderr", 0, Infinity)).toEqual([[0, t0 + 250]]);
    // The offsets are where the bytes are in the logs themselves.
    expect(readLog(dataDir, "run_t", "combined", 12, 100).content.toString()).toBe("bye\n");
    expect(readLog(dataDir, "run_t", "stdout", 7, 100).content.toString()).toBe("bye\n");
  });

  it("answers a page: the chunk the page starts inside, then the chunks that start before its end", async () => {
    const { dir, logs, clock } = openLogs();
    for (let i = 0; i < 1000; i++) {
      clock.now += 10;
      logs.append(i % 4 === 3 ? "stderr" : "stdout", Buffer.from(`line ${String(i).padStart(4, "0")}\n`)); // 10 bytes each
    }
    await logs.close();
    const page = readLogTimes(dir, "combined", 5005, 5100);
    expect(page[0]).toEqual([5000, 1_700_000_000_000 + 5010]);
    expect(page.map(([offset]) => offset)).toEqual([5000, 5010, 5020, 5030, 5040, 5050, 5060, 5070, 5080, 5090]);
    // stdout alone: three of every four chunks, offsets counted in stdout's own bytes.
    const stdout = readLogTimes(dir, "stdout", 30, 60);
    expect(stdout.map(([offset]) => offset)).toEqual([30, 40, 50]);
    expect(stdout[0]![1]).toBe(1_700_000_000_000 + 50); // chunk 4 (the 4th stdout chunk) at the 5th tick
  });

  it("adds no record for a chunk in the same millisecond and stream as the last: one write per new time", async () => {
    const { dir, logs } = openLogs();
    for (let i = 0; i < 50; i++) logs.append("stdout", Buffer.from("x"));
    logs.append("stderr", Buffer.from("e"));
    logs.append("stdout", Buffer.from("y"));
    await logs.close();
    expect(fs.statSync(RunLogTimes.pathFor(dir)).size).toBe(3 * 32);
    expect(readLogTimes(dir, "combined", 0, Infinity).map(([offset]) => offset)).toEqual([0, 50, 51]);
  });

  it("a run from before times were recorded has none, and an empty log has none", async () => {
    expect(readLogTimes(path.join(os.tmpdir(), "berth-no-such-run"), "stdout", 0, 100)).toEqual([]);
    const { dir, logs } = openLogs();
    await logs.close();
    expect(readLogTimes(dir, "combined", 0, 100)).toEqual([]);
  });
});
