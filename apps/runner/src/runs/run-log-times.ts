import fs from "node:fs";
import path from "node:path";

export type TimedStream = "stdout" | "stderr" | "combined";

/**
 * One record per output chunk: when it arrived (epoch ms), which stream it went to, and where each stream
 * stood before it. Fixed-size records of float64s (exact for any offset below 2^53), so a page's times are
 * found by binary search however long the run: every record's stdout, stderr and combined (their sum)
 * offsets only grow from one record to the next.
 */
const RECORD_BYTES = 32;
const FILE = "times.idx";
/** Most times one read of the index returns (a page of log holds at most this many chunks' starts). */
export const LOG_TIMES_MAX = 100_000;

interface TimeRecord {
  ms: number;
  stream: "stdout" | "stderr";
  stdout: number;
  stderr: number;
}

const keyOf = (record: TimeRecord, stream: TimedStream) =>
  stream === "stdout" ? record.stdout : stream === "stderr" ? record.stderr : record.stdout + record.stderr;

/**
 * A run's sidecar index next to its logs (RunLogs): appended with one small write per chunk, none per byte. A
 * chunk in the same millisecond and stream as the one before adds nothing: the earlier record already says
 * when those bytes came.
 */
export class RunLogTimes {
  private fd: number | null = null;
  private last: { ms: number; stream: "stdout" | "stderr" } | null = null;

  constructor(readonly dir: string) {}

  static pathFor(dir: string): string {
    return path.join(dir, FILE);
  }

  open(): void {
    this.fd = fs.openSync(RunLogTimes.pathFor(this.dir), "a", 0o600);
  }

  /** `stdout` and `stderr`: each stream's size before this chunk was written. */
  append(stream: "stdout" | "stderr", at: { stdout: number; stderr: number }, ms: number): void {
    if (this.fd === null) return;
    if (this.last && this.last.ms === ms && this.last.stream === stream) return;
    const record = Buffer.alloc(RECORD_BYTES);
    record.writeDoubleLE(ms, 0);
    record.writeDoubleLE(stream === "stdout" ? 0 : 1, 8);
    record.writeDoubleLE(at.stdout, 16);
    record.writeDoubleLE(at.stderr, 24);
    fs.writeSync(this.fd, record);
    this.last = { ms, stream };
  }

  close(): void {
    if (this.fd !== null) fs.closeSync(this.fd);
    this.fd = null;
  }
}

/**
 * When the bytes of `stream` in [from, to) arrived: `[offset, ms]` pairs, offset in that stream's own bytes,
 * the first one at or before `from` (the chunk `from` falls in), in order. Empty for a run from before times
 * were recorded.
 */
export function readLogTimes(runDir: string, stream: TimedStream, from: number, to: number): [number, number][] {
  const file = RunLogTimes.pathFor(runDir);
  if (!fs.existsSync(file)) return [];
  const fd = fs.openSync(file, "r");
  try {
    const count = Math.floor(fs.fstatSync(fd).size / RECORD_BYTES);
    const one = Buffer.alloc(RECORD_BYTES);
    const read = (index: number): TimeRecord => {
      fs.readSync(fd, one, 0, RECORD_BYTES, index * RECORD_BYTES);
      return { ms: one.readDoubleLE(0), stream: one.readDoubleLE(8) === 0 ? "stdout" : "stderr", stdout: one.readDoubleLE(16), stderr: one.readDoubleLE(24) };
    };
    const mine = (record: TimeRecord) => stream === "combined" || record.stream === stream;
    // The first record whose chunk starts after `from`; the one covering `from` is the last of ours before it.
    let lo = 0;
    let hi = count;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (keyOf(read(mid), stream) <= from) lo = mid + 1;
      else hi = mid;
    }
    const times: [number, number][] = [];
    for (let i = lo - 1; i >= 0; i--) {
      const record = read(i);
      if (!mine(record)) continue;
      times.push([keyOf(record, stream), record.ms]);
      break;
    }
    for (let i = lo; i < count && times.length < LOG_TIMES_MAX; i++) {
      const record = read(i);
      const key = keyOf(record, stream);
      if (key >= to) break;
      if (mine(record)) times.push([key, record.ms]);
    }
    return times;
  } finally {
    fs.closeSync(fd);
  }
}
