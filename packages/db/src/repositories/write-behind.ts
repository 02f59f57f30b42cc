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

  /** A buffer's "write what you hold now"; it tracks the write it starts. */
  onSettle(flush: () => void): void {
    this.flushes.add(flush);
  }

  /** Resolves once every write tracked so far (and every row buffered so far) is written or has failed. */
  async settled(): Promise<void> {
    for (const flush of this.flushes) flush();
    if (this.pending.size) await Promise.all([...this.pending]);
  }
}
