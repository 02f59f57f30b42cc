import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import v8 from "node:v8";
import vm from "node:vm";
import { afterEach, describe, expect, it } from "vitest";
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

  it(`keeps ${KEPT_BLOCKS} blocks, takes back one let go of while a view of it is alive, and reads it again once it is freed`, async () => {
    const bytes = crypto.randomBytes((KEPT_BLOCKS + 2) * LOG_BLOCK);
    const log = logOf(bytes);
    // A view a slow follower still has queued.
    const queued: { view: Buffer | null } = { view: log.at(0) };
    readAll(log, LOG_BLOCK);
    // Block 0 was let go of, but the queued view holds it: taken back, no second copy.
    expect(log.at(0).buffer).toBe(queued.view!.buffer);
    const firstMemory = new WeakRef(queued.view!.buffer);
    readAll(log, LOG_BLOCK);
    queued.view = null;
    // Nothing holds block 0 any more: once the GC frees it, a follower that far behind reads it again, still exact.
    await new Promise((resolve) => setImmediate(resolve));
    collectGarbage();
    expect(firstMemory.deref()).toBeUndefined();
    const again = log.at(0);
    expect(again.equals(bytes.subarray(0, LOG_BLOCK))).toBe(true);
  });
});
