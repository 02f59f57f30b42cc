import fs from "node:fs";
import path from "node:path";

/**
 * A write made on the event loop that takes longer than this means the disk is stalled or throttled: the writer
 * then queues its writes off the loop from there on, and new writers start that way for QUEUED_AFTER_SLOW_MS.
 */
const SLOW_WRITE_MS = 20;
const QUEUED_AFTER_SLOW_MS = 60_000;
let slowDiskUntil = 0;

/**
 * Appends to a run's log files, each file in order; `after` callbacks run once everything written before them is
 * on disk (in the page cache: a runner crash cannot lose it), in order, so nothing is announced that a crash could
 * lose. The data files are written before the index file, so the index never names bytes a crash lost. The folder
 * and files are made on the first write (a run that prints nothing opens none).
 *
 * Two ways, one at a time:
 * - **At once** (the default): each write is a `writeSync` on the event loop, its callbacks called right after. A
 *   64 KiB append to the page cache costs tens of microseconds, and the output pipeline needs no thread of the
 *   pool woken per batch: `run_script` printing 100 MB ran ~25 % faster so than queued (docs/benchmarks.md).
 * - **Queued** off the event loop: chunks queue per file and one batch is in flight at a time (one writev per file:
 *   a burst costs one syscall, not one per chunk). A writer with `beside` is always queued: `beside` stores each
 *   batch somewhere else too (the database log store), in parallel with its files and before its callbacks, so
 *   "announced" then means "durable there as well". A writer whose write at once took over SLOW_WRITE_MS is queued
 *   from then on, so a stalled disk holds up its logs, never the runner's event loop for more than that write.
 */
export class RunLogWriter {
  private atOnce: boolean;
  /** Milliseconds, to time a write at once. */
  private readonly clock: () => number;
  /** Files opened for writes at once. */
  private readonly fds = new Map<string, number>();
  private readonly files = new Map<string, Promise<fs.promises.FileHandle>>();
  private pending = new Map<string, Buffer[]>();
  private callbacks: (() => void)[] = [];
  private idle: (() => void)[] = [];
  private running = false;
  private made: Promise<unknown> | null = null;
  /** The first write that failed (a full disk): later chunks are dropped and no longer announced. */
  error: Error | null = null;

  constructor(
    readonly dir: string,
    /** Written after the others of each batch. */
    private readonly indexFile: string,
    /** Called as each batch starts (what it takes must be that batch's); a rejection fails the writer like a write. */
    private readonly beside?: () => Promise<void> | undefined,
    opts: { queued?: boolean; clock?: () => number } = {},
  ) {
    this.atOnce = !beside && !opts.queued && Date.now() >= slowDiskUntil;
    this.clock = opts.clock ?? (() => performance.now());
  }

  write(file: string, data: Buffer): void {
    if (this.atOnce) return this.writeNow(file, data);
    const queue = this.pending.get(file);
    if (queue) queue.push(data);
    else this.pending.set(file, [data]);
    this.kick();
  }

  /** Runs `callback` once everything written before it is on disk (never, after a failed write). */
  after(callback: () => void): void {
    // At once, everything written before is on disk already (a write that failed stops the callbacks, as queued).
    if (this.atOnce) return void (this.error ? undefined : callback());
    this.callbacks.push(callback);
    this.kick();
  }

  /** Settles when nothing is queued or in flight. */
  flushed(): Promise<void> {
    if (!this.running) return Promise.resolve();
    return new Promise((resolve) => this.idle.push(resolve));
  }

  /** Waits for what is queued, then closes the files. */
  async close(): Promise<void> {
    await this.flushed();
    const handles = await Promise.allSettled(this.files.values());
    this.files.clear();
    await Promise.allSettled(handles.map((h) => (h.status === "fulfilled" ? h.value.close() : undefined)));
    for (const fd of this.fds.values()) fs.closeSync(fd);
    this.fds.clear();
  }

  /** A write at once; one that was slow sends this writer (and new ones, for a while) off the event loop. */
  private writeNow(file: string, data: Buffer): void {
    if (this.error) return;
    const started = this.clock();
    try {
      let fd = this.fds.get(file);
      if (fd === undefined) {
        // Private to the runner's user, like everything in the data dir (a log holds what a session printed).
        if (this.fds.size === 0) fs.mkdirSync(this.dir, { recursive: true, mode: 0o700 });
        fd = fs.openSync(path.join(this.dir, file), "a", 0o600);
        this.fds.set(file, fd);
      }
      // A short write (rare on a regular file): the remainder goes next, still in order.
      for (let at = 0; at < data.length; ) at += fs.writeSync(fd, data, at);
    } catch (error) {
      this.error = error instanceof Error ? error : new Error(String(error));
      return;
    }
    if (this.clock() - started > SLOW_WRITE_MS) {
      this.atOnce = false;
      slowDiskUntil = Date.now() + QUEUED_AFTER_SLOW_MS;
    }
  }

  private kick(): void {
    if (this.running) return;
    this.running = true;
    void this.drain();
  }

  private async drain(): Promise<void> {
    try {
      while (this.pending.size > 0 || this.callbacks.length > 0) {
        const batch = this.pending;
        const callbacks = this.callbacks;
        this.pending = new Map();
        this.callbacks = [];
        const stored = this.error ? undefined : this.beside?.();
        if (!this.error && (batch.size > 0 || stored)) {
          try {
            const index = batch.get(this.indexFile);
            await Promise.all([...[...batch].filter(([file]) => file !== this.indexFile).map(([file, chunks]) => this.append(file, chunks)), stored]);
            if (index) await this.append(this.indexFile, index);
          } catch (error) {
            this.error = error instanceof Error ? error : new Error(String(error));
          }
        }
        if (!this.error) for (const callback of callbacks) callback();
      }
    } finally {
      this.running = false;
      for (const resolve of this.idle.splice(0)) resolve();
    }
  }

  private async append(file: string, chunks: Buffer[]): Promise<void> {
    let handle = this.files.get(file);
    if (!handle) {
      // Private to the runner's user, like everything in the data dir (a log holds what a session printed).
      this.made ??= fs.promises.mkdir(this.dir, { recursive: true, mode: 0o700 });
      handle = this.made.then(() => fs.promises.open(path.join(this.dir, file), "a", 0o600));
      this.files.set(file, handle);
    }
    const fd = await handle;
    let rest = chunks;
    for (;;) {
      const total = rest.reduce((n, c) => n + c.length, 0);
      const { bytesWritten } = await fd.writev(rest);
      if (bytesWritten >= total) return;
      // A short write (rare on a regular file): the remainder goes next, still in order.
      rest = [Buffer.concat(rest).subarray(bytesWritten)];
    }
  }
}
