import fs from "node:fs";
import path from "node:path";

export type TimedStream = "stdout" | "stderr" | "combined";

/**
 * One record per output chunk: when it arrived (epoch ms), which stream it went to, and where each stream
 * stood before it. Fixed-size records of float64s (exact for any offset below 2^53), so a page's times are
 * found by binary search however long the run: every record's stdout, stderr and combined (their sum)
 * offsets only grow from one record to the next.
 *
 * The same records are the combined log's index: a chunk of the other stream than the last always gets a
 * record, so between two records the bytes are all of the first one's stream, and the combined view is read
 * from stdout.log and stderr.log instead of being written a second time (combinedPieces).
 */
const RECORD_BYTES = 32;
export const LOG_TIMES_FILE = "times.idx";
/** Most times one read of the index returns (a page of log holds at most this many chunks' starts). */
export const LOG_TIMES_MAX = 100_000;
/** Records read from the index at once when walking it. */
const BLOCK_RECORDS = 512;

interface TimeRecord {
  ms: number;
  stream: "stdout" | "stderr";
  stdout: number;
  stderr: number;
}

const keyOf = (record: TimeRecord, stream: TimedStream) =>
  stream === "stdout" ? record.stdout : stream === "stderr" ? record.stderr : record.stdout + record.stderr;

/**
 * The records of a run's sidecar index next to its logs (RunLogs writes them): one per chunk, none per byte. A
 * chunk in the same millisecond and stream as the one before adds nothing: the earlier record already says
 * when those bytes came.
 */
export class RunLogTimes {
  private last: { ms: number; stream: "stdout" | "stderr" } | null = null;

  static pathFor(dir: string): string {
    return path.join(dir, LOG_TIMES_FILE);
  }

  /** The record for a chunk of `stream` (`at`: each stream's size before it), or null when it needs none. */
  record(stream: "stdout" | "stderr", at: { stdout: number; stderr: number }, ms: number): Buffer | null {
    if (this.last && this.last.ms === ms && this.last.stream === stream) return null;
    const record = Buffer.alloc(RECORD_BYTES);
    record.writeDoubleLE(ms, 0);
    record.writeDoubleLE(stream === "stdout" ? 0 : 1, 8);
    record.writeDoubleLE(at.stdout, 16);
    record.writeDoubleLE(at.stderr, 24);
    this.last = { ms, stream };
    return record;
  }
}

/** Reads records of an open index, a block at a time when walking forward. */
class RecordReader {
  readonly count: number;
  private block = Buffer.alloc(0);
  private blockStart = 0;

  constructor(private readonly fd: number) {
    this.count = Math.floor(fs.fstatSync(fd).size / RECORD_BYTES);
  }

  at(index: number): TimeRecord {
    if (index < this.blockStart || index >= this.blockStart + this.block.length / RECORD_BYTES) {
      const records = Math.min(BLOCK_RECORDS, this.count - index);
      this.block = Buffer.alloc(records * RECORD_BYTES);
      this.blockStart = index;
      fs.readSync(this.fd, this.block, 0, this.block.length, index * RECORD_BYTES);
    }
    const at = (index - this.blockStart) * RECORD_BYTES;
    const one = this.block;
    return { ms: one.readDoubleLE(at), stream: one.readDoubleLE(at + 8) === 0 ? "stdout" : "stderr", stdout: one.readDoubleLE(at + 16), stderr: one.readDoubleLE(at + 24) };
  }

  /** Index of the first record whose `stream` offset is past `from`. */
  firstAfter(stream: TimedStream, from: number): number {
    let lo = 0;
    let hi = this.count;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (keyOf(this.at(mid), stream) <= from) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
}

function withIndex<T>(runDir: string, empty: T, use: (records: RecordReader) => T): T {
  let fd: number;
  try {
    fd = fs.openSync(RunLogTimes.pathFor(runDir), "r");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return empty;
    throw error;
  }
  try {
    return use(new RecordReader(fd));
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * When the bytes of `stream` in [from, to) arrived: `[offset, ms]` pairs, offset in that stream's own bytes,
 * the first one at or before `from` (the chunk `from` falls in), in order. Empty for a run from before times
 * were recorded.
 */
export function readLogTimes(runDir: string, stream: TimedStream, from: number, to: number): [number, number][] {
  return withIndex(runDir, [], (records) => {
    const mine = (record: TimeRecord) => stream === "combined" || record.stream === stream;
    // The first record whose chunk starts after `from`; the one covering `from` is the last of ours before it.
    const lo = records.firstAfter(stream, from);
    const times: [number, number][] = [];
    for (let i = lo - 1; i >= 0; i--) {
      const record = records.at(i);
      if (!mine(record)) continue;
      times.push([keyOf(record, stream), record.ms]);
      break;
    }
    for (let i = lo; i < records.count && times.length < LOG_TIMES_MAX; i++) {
      const record = records.at(i);
      const key = keyOf(record, stream);
      if (key >= to) break;
      if (mine(record)) times.push([key, record.ms]);
    }
    return times;
  });
}

/** A stretch of the combined log: `length` bytes of `stream` from its own `offset`. */
export interface CombinedPiece {
  stream: "stdout" | "stderr";
  offset: number;
  length: number;
}

/**
 * The pieces of stdout and stderr that make the combined log's bytes [from, to), in order, given each stream's
 * size on disk. Each record's stretch runs to the next record (or to the end of its stream); bytes of a stream
 * past what the index covers (a runner that died between a data write and its index write) come last, so no
 * byte on disk is left out of the combined view.
 */
export function combinedPieces(runDir: string, from: number, to: number, sizes: { stdout: number; stderr: number }): CombinedPiece[] {
  const total = sizes.stdout + sizes.stderr;
  const end = Math.min(to, total);
  if (from >= end) return [];
  // One stream only (most runs): the combined log is that stream.
  if (sizes.stderr === 0) return [{ stream: "stdout", offset: from, length: end - from }];
  if (sizes.stdout === 0) return [{ stream: "stderr", offset: from, length: end - from }];
  const fallback: CombinedPiece[] = [];
  if (from < sizes.stdout) fallback.push({ stream: "stdout", offset: from, length: Math.min(end, sizes.stdout) - from });
  if (end > sizes.stdout) fallback.push({ stream: "stderr", offset: Math.max(from, sizes.stdout) - sizes.stdout, length: end - Math.max(from, sizes.stdout) });
  return withIndex(runDir, fallback, (records) => {
    if (records.count === 0) return fallback;
    const pieces: CombinedPiece[] = [];
    const take = (stream: "stdout" | "stderr", startCombined: number, startOwn: number, stopCombined: number) => {
      const a = Math.max(from, startCombined);
      const b = Math.min(end, stopCombined);
      if (b > a) pieces.push({ stream, offset: startOwn + (a - startCombined), length: b - a });
    };
    let last = records.at(records.count - 1);
    for (let i = Math.max(0, records.firstAfter("combined", from) - 1); i < records.count; i++) {
      const record = records.at(i);
      const start = keyOf(record, "combined");
      if (start >= end) return pieces;
      const own = record[record.stream];
      const next = i + 1 < records.count ? keyOf(records.at(i + 1), "combined") : Infinity;
      take(record.stream, start, own, Math.min(next, start + Math.max(0, sizes[record.stream] - own)));
      last = record;
    }
    // Past the last record: its stream to its end, then whatever of the other stream the index never covered.
    const lastEnd = keyOf(last, "combined") + Math.max(0, sizes[last.stream] - last[last.stream]);
    const other = last.stream === "stdout" ? "stderr" : "stdout";
    take(other, lastEnd, last[other], lastEnd + Math.max(0, sizes[other] - last[other]));
    return pieces;
  });
}
