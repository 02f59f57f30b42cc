import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { RunLogTimes } from "./run-log-times";

export type LogStream = "stdout" | "stderr" | "combined";

/**
 * A run's logs on disk: one file per stream plus `combined` (arrival order, for terminals). Writes are
 * synchronous appends, so a chunk is on disk before anyone is told about it: a runner crash loses nothing
 * already shown. Offsets are byte offsets within each file. Beside them, `times.idx` (RunLogTimes) says when
 * each chunk arrived, for the log view's timestamps.
 */
export class RunLogs {
  private readonly fds = new Map<LogStream, number>();
  private readonly sizes = new Map<LogStream, number>();
  // Hashed as written, so sealing a receipt never re-reads a 100 MB log.
  private readonly hashes = new Map<LogStream, crypto.Hash>();

  private readonly times: RunLogTimes;

  constructor(
    readonly dir: string,
    private readonly now: () => number = Date.now,
  ) {
    this.times = new RunLogTimes(dir);
  }

  static dirFor(dataDir: string, runId: string): string {
    return path.join(dataDir, "runs", runId);
  }

  static pathFor(dataDir: string, runId: string, stream: LogStream): string {
    return path.join(RunLogs.dirFor(dataDir, runId), `${stream}.log`);
  }

  open(): void {
    // Private to the runner's user, like everything in the data dir (a log holds what a session printed).
    fs.mkdirSync(this.dir, { recursive: true, mode: 0o700 });
    for (const stream of ["stdout", "stderr", "combined"] as const) {
      const file = path.join(this.dir, `${stream}.log`);
      this.fds.set(stream, fs.openSync(file, "a", 0o600));
      const existing = fs.existsSync(file) ? fs.readFileSync(file) : Buffer.alloc(0);
      this.sizes.set(stream, existing.length);
      this.hashes.set(stream, crypto.createHash("sha256").update(existing));
    }
    this.times.open();
  }

  /** Appends a chunk; returns the offsets it was written at (its stream's and the combined log's). */
  append(stream: "stdout" | "stderr", data: Buffer): { offset: number; combinedOffset: number } {
    if (data.length > 0) this.times.append(stream, { stdout: this.size("stdout"), stderr: this.size("stderr") }, this.now());
    const offset = this.write(stream, data);
    const combinedOffset = this.write("combined", data);
    return { offset, combinedOffset };
  }

  size(stream: LogStream): number {
    return this.sizes.get(stream) ?? 0;
  }

  private write(stream: LogStream, data: Buffer): number {
    const fd = this.fds.get(stream);
    if (fd === undefined) throw new Error(`run log ${this.dir} is not open`);
    const offset = this.sizes.get(stream) ?? 0;
    fs.writeSync(fd, data);
    this.sizes.set(stream, offset + data.length);
    this.hashes.get(stream)?.update(data);
    return offset;
  }

  /** sha256 and size of each stream, for the receipt. */
  digests(): { name: "stdout" | "stderr"; sha256: string; bytes: number }[] {
    return (["stdout", "stderr"] as const).map((name) => ({
      name,
      sha256: this.hashes.get(name)?.copy().digest("hex") ?? crypto.createHash("sha256").digest("hex"),
      bytes: this.size(name),
    }));
  }

  close(): void {
    for (const fd of this.fds.values()) fs.closeSync(fd);
    this.fds.clear();
    this.times.close();
  }
}

/** Current size of a run's log in bytes (0 when it has none). */
export function logSize(dataDir: string, runId: string, stream: LogStream): number {
  const file = RunLogs.pathFor(dataDir, runId, stream);
  return fs.existsSync(file) ? fs.statSync(file).size : 0;
}

/** Reads a byte range of a run's log (any offset, not just a recent window). */
export function readLog(dataDir: string, runId: string, stream: LogStream, offset: number, limit: number): { content: Buffer; size: number } {
  const file = RunLogs.pathFor(dataDir, runId, stream);
  if (!fs.existsSync(file)) return { content: Buffer.alloc(0), size: 0 };
  const size = fs.statSync(file).size;
  const start = Math.min(Math.max(0, offset), size);
  const length = Math.min(limit, size - start);
  const content = Buffer.alloc(length);
  if (length > 0) {
    const fd = fs.openSync(file, "r");
    try {
      fs.readSync(fd, content, 0, length, start);
    } finally {
      fs.closeSync(fd);
    }
  }
  return { content, size };
}

/**
 * A kept-open read handle on one of a run's logs, for readers that take a log in many steps (a socket follower
 * catching up, a streamed range over HTTP): one open for all its reads, no stat per read. It reads what
 * `readLog` reads, so a change of the logs' layout changes both.
 */
export class LogReader {
  private fd: number | null = null;

  constructor(private readonly file: string) {}

  static open(dataDir: string, runId: string, stream: LogStream): LogReader {
    return new LogReader(RunLogs.pathFor(dataDir, runId, stream));
  }

  /** Reads up to `into.length` bytes at `offset`; the count read, 0 at the end of what is written so far (or with no log yet). */
  read(offset: number, into: Buffer): number {
    if (this.fd === null) {
      try {
        this.fd = fs.openSync(this.file, "r");
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === "ENOENT") return 0;
        throw error;
      }
    }
    return fs.readSync(this.fd, into, 0, into.length, offset);
  }

  close(): void {
    if (this.fd !== null) fs.closeSync(this.fd);
    this.fd = null;
  }
}
