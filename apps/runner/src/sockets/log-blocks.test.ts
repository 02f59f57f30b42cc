import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import v8 from "node:v8";
import vm from "node:vm";
import { afterEach, describe, expect, it, vi } from "vitest";
import { RunLogs } from "../runs/run-logs";
import { KEPT_BLOCKS, LOG_BLOCK, LogBlocks } from "./log-blocks";

const RUN = "run_blocks";
// A full GC on demand: the flag exposes `gc` to contexts made after it is set.
v8.setFlagsFromString("--expose-gc");
const collectGarbage = vm.runInNewContext("gc") as () => void;
let dataDir = "";
let blocks: LogBlocks | null = null;

function logOf(bytes: Buffer): LogBlocks {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "berth-log-blocks-"));
  fs.mkdirSync(RunLogs.dirFor(dataDir, RUN), { recursive: true });
  fs.writeFileSync(RunLogs.pathFor(dataDir, RUN, "stdout"), bytes);
  return (blocks = new LogBlocks({ dataDir, runId: RUN, stream: "stdout" }));
}

/** Everything from `offset` to the end, as a follower reads it: one block's view after another. */
function readAll(log: LogBlocks, offset: number): Buffer[] {
  const views: Buffer[] = [];
  for (let view = log.at(offset); view.length > 0; view = log.at(offset)) {
    views.push(view);
    offset += view.length;
  }
  return views;
}

afterEach(() => {
  blocks?.close();
  blocks = null;
  fs.rmSync(dataDir, { recursive: true, force: true });
});

describe("LogBlocks", () => {
  it("gives every follower at a block views of the same Buffer, exactly the log's bytes, cut at block ends", () => {
    const bytes = crypto.randomBytes(3 * LOG_BLOCK + 1000);
    const log = logOf(bytes);
    const first = readAll(log, 0);
    const second = readAll(log, 0);
    const late = readAll(log, LOG_BLOCK + 7);
    expect(first.map((v) => v.length)).toEqual([LOG_BLOCK, LOG_BLOCK, LOG_BLOCK, 1000]);
    expect(Buffer.concat(first).equals(bytes)).toBe(true);
    expect(Buffer.concat(late).equals(bytes.subarray(LOG_BLOCK + 7))).toBe(true);
    // Read once: the second follower's views and the late one's point into the first one's blocks.
    first.forEach((view, i) => expect(second[i]!.buffer).toBe(view.buffer));
    expect(late[0]!.buffer).toBe(first[1]!.buffer);
  });

  it("reads on into the live end's block as the log grows, leaving the views already given unchanged", () => {
    const head = Buffer.from("first line\n");
    const log = logOf(head);
    const before = log.at(0);
    expect(before.equals(head)).toBe(true);
    expect(log.at(head.length).length).toBe(0);
    const tail = Buffer.from("second line\n");
    fs.appendFileSync(RunLogs.pathFor(dataDir, RUN, "stdout"), tail);
    const after = log.at(head.length);
    expect(after.equals(tail)).toBe(true);
    expect(after.buffer).toBe(before.buffer);
    expect(before.equals(head)).toBe(true);
    expect(log.at(0).equals(Buffer.concat([head, tail]))).toBe(true);
  });

  it(`keeps ${KEPT_BLOCKS} blocks, reads into the memory of those let go of, and never into a block lent out`, () => {
    const bytes = crypto.randomBytes(3 * KEPT_BLOCKS * LOG_BLOCK);
    const block = (i: number) => bytes.subarray(i * LOG_BLOCK, (i + 1) * LOG_BLOCK);
    const log = logOf(bytes);
    const allocations = vi.spyOn(Buffer, "allocUnsafe");
    // A view a slow follower still has queued: lent until its connection has written it out.
    const queued = log.at(0);
    const lent = log.lend(0);
    // The others read on, each view checked as it is given (one not lent is not to be kept).
    for (let i = 1; i < 3 * KEPT_BLOCKS; i++) expect(log.at(i * LOG_BLOCK).equals(block(i))).toBe(true);
    // Every block let go of with nothing lent was read into again: the kept ones, and two more, were allocated.
    expect(allocations.mock.calls.filter(([size]) => size === LOG_BLOCK).length).toBe(KEPT_BLOCKS + 2);
    allocations.mockRestore();
    // Block 0 was let go of long ago, but it is lent: unchanged, and taken back rather than read again.
    expect(queued.equals(block(0))).toBe(true);
    expect(log.at(0).buffer).toBe(queued.buffer);
    // Given back (written out): its memory goes to the next blocks read, which are exact.
    log.giveBack(lent);
    for (let i = 1; i < 3 * KEPT_BLOCKS; i++) expect(log.at(i * LOG_BLOCK).equals(block(i))).toBe(true);
    expect(log.at(0).equals(block(0))).toBe(true);
  });

  it("leaves a block whose view went untracked to the GC: taken back while the view is alive, read again once it is freed", async () => {
    const bytes = crypto.randomBytes((KEPT_BLOCKS + 2) * LOG_BLOCK);
    const log = logOf(bytes);
    // A view queued on a connection whose writing out is not seen (a follower stopped with it queued).
    const queued: { view: Buffer | null } = { view: log.at(0) };
    log.untrack(log.lend(0));
    readAll(log, LOG_BLOCK);
    expect(log.at(0).buffer).toBe(queued.view!.buffer);
    const firstMemory = new WeakRef(queued.view!.buffer);
    readAll(log, LOG_BLOCK);
    // Its memory is never reused while the view may be alive: no block read since holds it.
    expect(readAll(log, LOG_BLOCK).every((view) => view.buffer !== queued.view!.buffer)).toBe(true);
    queued.view = null;
    await new Promise((resolve) => setImmediate(resolve));
    collectGarbage();
    expect(firstMemory.deref()).toBeUndefined();
    expect(log.at(0).equals(bytes.subarray(0, LOG_BLOCK))).toBe(true);
  });
});
