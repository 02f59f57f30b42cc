/**
 * Lifecycle operations on one session run one at a time (acquire racing destroy, idle racing restart); different
 * sessions never wait for each other. A failed operation does not block the next one.
 */
export class SessionLock {
  private readonly tails = new Map<string, Promise<unknown>>();

  run<T>(sessionId: string, fn: () => Promise<T>): Promise<T> {
    const previous = this.tails.get(sessionId) ?? Promise.resolve();
    const next = previous.then(fn, fn);
    const settled = next.then(
      () => undefined,
      () => undefined,
    );
    this.tails.set(sessionId, settled);
    void settled.then(() => {
      if (this.tails.get(sessionId) === settled) this.tails.delete(sessionId);
    });
    return next;
  }

  /** Sessions with an operation queued or running (tests, diagnostics). */
  get busy(): number {
    return this.tails.size;
  }
}
