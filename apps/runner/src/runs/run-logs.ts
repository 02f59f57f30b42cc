import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { LOG_TIMES_FILE, RunLogTimes, combinedPieces } from "./run-log-times";
import { RunLogWriter } from "./run-log-writer";

export type LogStream = "stdout" | "stderr" | "combined";
type OutputStream = "stdout" | "stderr";

/** Where a chunk went: its offset in its own stream and in the combined log. */
export interface AppendedAt {
  offset: number;
  combinedOffset: number;
}

/** The logs of runs still being written by this runner: readers see only what they announced (see RunLogs). */
const liveLogs = new Map<string, RunLogs>();

/** A chunk of output as a store beside the files keeps it (chunks of one stream and millisecond are joined). */
export interface StoredChunk {
  stream: OutputStream;
  /** Where it starts in its stream. */
  offset: number;
  /** Arrival time, epoch ms: what times.idx records. */
  ms: number;
  data: Buffer;
}

/**
 * Where a run's output goes besides its files (the database log store, cluster/database-log-store.ts): one
 * batch at a time, in order, each before any of its chunks is announced.
 */
export interface RunLogSink {
  store(chunks: StoredChunk[]): Promise<void>;
  /** The log is whole: nothing more will be stored (its readers on other runners may stop following). */
  end(): void;
}

/** Chunks joined into one stored chunk at most (a burst within one millisecond). */
const MAX_STORED_CHUNK = 1024 * 1024;

/**
 * A run's logs on disk: stdout.log and stderr.log, and `times.idx` (RunLogTimes) saying when each chunk arrived
 * and, since every switch of stream has a record, how the two interleave: the combined log (arrival order, what
 * a terminal shows) is read from the two files through it, so each chunk is written once. Offsets are byte offsets
 * within each stream, and within the combined view. (Runs from before kept a combined.log; it is still read.)
 *
 * Appends are written by RunLogWriter: at once, or queued off the event loop with a sink or a slow disk. A chunk's
 * `announce` callback runs once it is on disk, in order (at once: before `append` returns), and readers of a live
 * run see only announced bytes. So a runner crash loses nothing already shown, and a follower that reads to the end
 * and then takes the next broadcast chunk misses none. With a sink (the database log store), each batch is also
 * stored there before it is announced.
 */
export class RunLogs {
  private readonly sizes = { stdout: 0, stderr: 0 };
  private readonly announced = { stdout: 0, stderr: 0 };
  // Hashed as appended, so sealing a receipt never re-reads a 100 MB log; the combined view needs no hash.
  private readonly hashes = { stdout: crypto.createHash("sha256"), stderr: crypto.createHash("sha256") };
  private readonly times = new RunLogTimes();
  private readonly writer: RunLogWriter;
  /** The sink's chunks of the batch being gathered; each is one chunk or several parts of one stream and ms. */
  private unstored: { chunk: StoredChunk; parts: Buffer[]; bytes: number }[] = [];
  /** Settles once close() has put every byte on disk and closed the files. */
  closed: Promise<void> | null = null;

  constructor(
    readonly dir: string,
    private readonly now: () => number = Date.now,
    private readonly sink?: RunLogSink,
    /** Write off the event loop even with no sink (RunLogWriter): for appends that come in bursts. */
    opts: { queued?: boolean } = {},
  ) {
    this.writer = new RunLogWriter(dir, LOG_TIMES_FILE, sink ? () => this.storeBatch(sink) : undefined, opts);
    liveLogs.set(dir, this);
  }

  /**
   * Takes up the logs of a run another runner wrote (failover): appends continue after what the files hold, whose
   * sizes and sha256 are read from them once, so offsets and the receipt's digests cover the whole log.
   */
  static resume(dir: string, now: () => number = Date.now, sink?: RunLogSink): RunLogs {
    const logs = new RunLogs(dir, now, sink);
    for (const stream of ["stdout", "stderr"] as const) {
      const file = path.join(dir, `${stream}.log`);
      if (!fs.existsSync(file)) continue;
      const fd = fs.openSync(file, "r");
      try {
        const chunk = Buffer.alloc(1 << 20);
        for (let n = fs.readSync(fd, chunk); n > 0; n = fs.readSync(fd, chunk)) {
          logs.hashes[stream].update(chunk.subarray(0, n));
          logs.sizes[stream] += n;
        }
      } finally {
        fs.closeSync(fd);
      }
      logs.announced[stream] = logs.sizes[stream];
    }
    return logs;
  }

  /** Settles once nothing appended is still being written (on disk, in the sink and announced, unless a write failed). */
  flushed(): Promise<void> {
    return this.writer.flushed();
  }

  /** Whether this runner is writing the run's logs now (its own run, or a copy it is making of another runner's). */
  static writing(dataDir: string, runId: string): boolean {
    return liveLogs.has(RunLogs.dirFor(dataDir, runId));
  }

  static dirFor(dataDir: string, runId: string): string {
    return path.join(dataDir, "runs", runId);
  }

  static pathFor(dataDir: string, runId: string, stream: LogStream): string {
    return path.join(RunLogs.dirFor(dataDir, runId), `${stream}.log`);
  }

  /**
   * Appends a chunk; `announce` runs once it is on disk (after every chunk appended before it). `ms` is when it
   * arrived (now, unless it is a copy of a chunk another runner received).
   */
  append(stream: OutputStream, data: Buffer, announce?: (at: AppendedAt) => void, ms = this.now()): AppendedAt {
    const at = { offset: this.sizes[stream], combinedOffset: this.sizes.stdout + this.sizes.stderr };
    if (data.length === 0 || this.closed) return at;
    const record = this.times.record(stream, this.sizes, ms);
    if (this.sink) this.keepForSink(stream, at.offset, ms, data, record === null);
    this.sizes[stream] += data.length;
    this.hashes[stream].update(data);
    this.writer.write(`${stream}.log`, data);
    if (record) this.writer.write(LOG_TIMES_FILE, record);
    const end = this.sizes[stream];
    this.writer.after(() => {
      this.announced[stream] = end;
      announce?.(at);
    });
    return at;
  }

  /** Bytes appended (not all of them on disk yet). */
  size(stream: LogStream): number {
    return stream === "combined" ? this.sizes.stdout + this.sizes.stderr : this.sizes[stream];
  }

  /** Bytes on disk and announced: what readers of this live run see. */
  announcedSize(stream: LogStream): number {
    return stream === "combined" ? this.announced.stdout + this.announced.stderr : this.announced[stream];
  }

  /** sha256 and size of each stream, for the receipt. */
  digests(): { name: OutputStream; sha256: string; bytes: number }[] {
    return (["stdout", "stderr"] as const).map((name) => ({ name, sha256: this.hashes[name].copy().digest("hex"), bytes: this.size(name) }));
  }

  /** No more appends; settles once every byte is on disk and announced, and the files are closed. */
  close(): Promise<void> {
    this.closed ??= this.writer.close().finally(() => {
      if (liveLogs.get(this.dir) === this) liveLogs.delete(this.dir);
      if (this.sink && !this.writer.error) this.sink.end();
    });
    return this.closed;
  }

  /** `joins`: the chunk has the same stream and millisecond as the one before (it got no times record). */
  private keepForSink(stream: OutputStream, offset: number, ms: number, data: Buffer, joins: boolean): void {
    const last = this.unstored.at(-1);
    if (joins && last && last.bytes + data.length <= MAX_STORED_CHUNK) {
      last.parts.push(data);
      last.bytes += data.length;
    } else this.unstored.push({ chunk: { stream, offset, ms, data }, parts: [data], bytes: data.length });
  }

  /** The writer's batch starts: the chunks gathered so far are exactly its chunks. */
  private storeBatch(sink: RunLogSink): Promise<void> | undefined {
    if (this.unstored.length === 0) return undefined;
    const batch = this.unstored.map(({ chunk, parts }) => (parts.length === 1 ? chunk : { ...chunk, data: Buffer.concat(parts) }));
    this.unstored = [];
    return sink.store(batch);
  }
}

/** Current size of a run's log in bytes (0 when it has none); of a live run, what it announced. */
export function logSize(dataDir: string, runId: string, stream: LogStream): number {
  const reader = LogReader.open(dataDir, runId, stream);
  try {
    return reader.size();
  } finally {
    reader.close();
  }
}

/** Reads a byte range of a run's log (any offset, not just a recent window). */
export function readLog(dataDir: string, runId: string, stream: LogStream, offset: number, limit: number): { content: Buffer; size: number } {
  const reader = LogReader.open(dataDir, runId, stream);
  try {
    const size = reader.size();
    const start = Math.min(Math.max(0, offset), size);
    const content = Buffer.alloc(Math.max(0, Math.min(limit, size - start)));
    const read = content.length > 0 ? reader.read(start, content) : 0;
    return { content: read < content.length ? content.subarray(0, read) : content, size };
  } finally {
    reader.close();
  }
}

/**
 * A kept-open read handle on one of a run's logs, for readers that take a log in many steps (a socket follower
 * catching up, a streamed range over HTTP): one open per file for all its reads. The combined log is read from
 * stdout.log and stderr.log through the times index; a live run's logs only as far as they were announced.
 */
export class LogReader {
  private readonly fds = new Map<string, number | null>();

  constructor(
    private readonly dir: string,
    private readonly stream: LogStream,
  ) {}

  static open(dataDir: string, runId: string, stream: LogStream): LogReader {
    return new LogReader(RunLogs.dirFor(dataDir, runId), stream);
  }

  /** Bytes readable now: a live run's announced bytes, else what is on disk. */
  size(): number {
    const live = liveLogs.get(this.dir);
    if (live) return live.announcedSize(this.stream);
    if (this.stream !== "combined" || this.fd("combined.log") !== null) return this.fileSize(`${this.stream}.log`);
    return this.fileSize("stdout.log") + this.fileSize("stderr.log");
  }

  /** Reads up to `into.length` bytes at `offset`; the count read, 0 at the end of what is readable so far (or with no log yet). */
  read(offset: number, into: Buffer): number {
    const live = liveLogs.get(this.dir);
    const limit = live ? Math.max(0, Math.min(into.length, live.announcedSize(this.stream) - offset)) : into.length;
    if (limit === 0) return 0;
    if (this.stream !== "combined") return this.readFile(`${this.stream}.log`, offset, into, limit);
    // A run from before the combined view was derived kept a file of it.
    if (!live && this.fd("combined.log") !== null) return this.readFile("combined.log", offset, into, limit);
    const sizes = live
      ? { stdout: live.announcedSize("stdout"), stderr: live.announcedSize("stderr") }
      : { stdout: this.fileSize("stdout.log"), stderr: this.fileSize("stderr.log") };
    let read = 0;
    for (const piece of combinedPieces(this.dir, offset, offset + limit, sizes)) {
      const got = this.readFile(`${piece.stream}.log`, piece.offset, into.subarray(read), piece.length);
      read += got;
      if (got < piece.length) break;
    }
    return read;
  }

  close(): void {
    for (const fd of this.fds.values()) if (fd !== null) fs.closeSync(fd);
    this.fds.clear();
  }

  private readFile(file: string, offset: number, into: Buffer, length: number): number {
    const fd = this.fd(file);
    return fd === null ? 0 : fs.readSync(fd, into, 0, length, offset);
  }

  private fileSize(file: string): number {
    const fd = this.fd(file);
    return fd === null ? 0 : fs.fstatSync(fd).size;
  }

  /**
   * The open file, or null while it does not exist: asked again next time (a run creates its logs on its first
   * write), except combined.log, which no run creates any more.
   */
  private fd(file: string): number | null {
    const known = this.fds.get(file);
    if (known !== undefined && (known !== null || file === "combined.log")) return known;
    try {
      const fd = fs.openSync(path.join(this.dir, file), "r");
      this.fds.set(file, fd);
      return fd;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
      this.fds.set(file, null);
      return null;
    }
  }
}
