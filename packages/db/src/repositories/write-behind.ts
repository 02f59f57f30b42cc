/**
 * Writes the runner does not wait for before it replies (a tool call's row, a run's end, a receipt): each is
 * tracked here, and every read of the tables they go to waits in `settled()` first, so a reader never sees
 * a state older than a reply it was given. Buffers that batch rows register a flush, which `settled()` runs at
 * once instead of waiting for their timer. On a crash what was tracked and not yet written is lost: only rows
 * the client was promised nothing about go through here.
 */
export class WriteBehind {
  private readonly pending = new Set<Promise<unknown>>();
  private readonly flushes = new Set<() => void>();
  /** Writes `later` holds back, in the order they were asked for, and the timer that starts them. */
  private deferred: (() => void)[] = [];
  private timer: NodeJS.Timeout | null = null;
  /** Per `after` name, the last write asked for under it, settled whether it landed or failed. */
  private readonly chains = new Map<string, Promise<void>>();

  /** Where a failed write is reported (the runner's log); it is never thrown at a reader. */
  constructor(private readonly onError: (error: unknown) => void = () => undefined) {}

  get idle(): boolean {
    return this.pending.size === 0;
  }

  track(write: Promise<unknown>): void {
    const settled = write.then(
      () => undefined,
      (error: unknown) => this.onError(error),
    );
    this.pending.add(settled);
    void settled.finally(() => this.pending.delete(settled));
  }

  /**
   * Starts `write` after the reply it belongs to has gone out (a timer, so after the turns that answer: a call's
   * last awaits are I/O), or at once when a reader calls settled(); tracked like `track`. A database write costs
   * the runner's one thread a millisecond of CPU or more (Prisma's query compiler), which otherwise lands between
   * the agent's answer and the caller's reply. Writes asked for in turn start in turn.
   *
   * `after` names the row a write depends on (a run's id for its row, its end and its receipt): the write starts
   * only once the one asked for before it under that name has landed or failed. Without it, on PostgreSQL two
   * writes take different pooled connections, so a receipt could reach the database before its run's row and fail
   * the foreign key.
   */
  later<T>(write: () => Promise<T>, options: { after?: string } = {}): Promise<T> {
    const turn = new Promise<void>((resolve) => this.deferred.push(resolve));
    const key = options.after;
    const before = key === undefined ? undefined : this.chains.get(key);
    const started = (before ? Promise.all([turn, before]) : turn).then(write);
    if (key !== undefined) {
      const done = started.then(
        () => undefined,
        () => undefined,
      );
      this.chains.set(key, done);
      void done.then(() => {
        if (this.chains.get(key) === done) this.chains.delete(key);
      });
    }
    this.timer ??= setTimeout(this.startDeferred, 0);
    this.track(started);
    return started;
  }

  /**
   * Settles once the writes asked for so far under `after: key` have landed or failed (at once when there are
   * none): a row written some other way that references that row (a batched tool call of a run) waits for it.
   */
  landed(key: string): Promise<void> {
    return this.chains.get(key) ?? Promise.resolve();
  }

  private readonly startDeferred = (): void => {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    const starts = this.deferred;
    this.deferred = [];
    for (const start of starts) start();
  };

  /** A buffer's "write what you hold now"; it tracks the write it starts. */
  onSettle(flush: () => void): void {
    this.flushes.add(flush);
  }

  /** Resolves once every write tracked so far (and every row buffered so far) is written or has failed. */
  async settled(): Promise<void> {
    this.startDeferred();
    for (const flush of this.flushes) flush();
    if (this.pending.size) await Promise.all([...this.pending]);
  }
}
