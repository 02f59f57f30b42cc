import fs from "node:fs";
import path from "node:path";

/**
 * Appends to a run's log files off the event loop. Chunks queue per file and one batch is in flight at a time
 * (one writev per file: a burst costs one syscall, not one per chunk), so every file keeps its order. The data
 * files of a batch are written before its index file, so the index never names bytes a crash lost. `after`
 * callbacks run once everything queued before them is on disk, in order: nothing is announced that a runner
 * crash could lose. The folder and files are made on the first write (a run that prints nothing opens none).
 * `beside` stores each batch somewhere else too (the database log store), in parallel with its files and
 * before its callbacks: "announced" then means "durable there as well".
 */
export class RunLogWriter {
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
  ) {}

  write(file: string, data: Buffer): void {
    const queue = this.pending.get(file);
    if (queue) queue.push(data);
    else this.pending.set(file, [data]);
    this.kick();
  }

  /** Runs `callback` once everything written before it is on disk (never, after a failed write). */
  after(callback: () => void): void {
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
