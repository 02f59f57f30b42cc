export interface WarmPoolOptions<T> {
  /** How many ready items to keep; 0 disables the pool. */
  size: number;
  create: () => Promise<T>;
  dispose: (item: T) => Promise<void>;
  /** An item that died while waiting is skipped (and disposed) by `take`. */
  isAlive: (item: T) => boolean;
  onError?: (error: unknown) => void;
  /** First retry delay after a failed create; doubles up to 30 s. */
  retryDelayMs?: number;
}

const MAX_RETRY_DELAY_MS = 30_000;

/**
 * Ready-made items (started, handshaken containers) handed out at once and refilled in the background.
 * Refills run concurrently up to `size`, so a burst of takes is made good as fast as the engine allows.
 */
export class WarmPool<T> {
  private readonly ready: T[] = [];
  private creating = 0;
  private closed = false;
  private retryDelayMs: number;
  private retryTimer: NodeJS.Timeout | null = null;
  private waiters: Array<() => void> = [];

  constructor(private readonly opts: WarmPoolOptions<T>) {
    this.retryDelayMs = opts.retryDelayMs ?? 1_000;
  }

  get available(): number {
    return this.ready.length;
  }

  get pending(): number {
    return this.creating;
  }

  /** The ready items, oldest first (reconcile keeps their volumes). */
  items(): readonly T[] {
    return this.ready;
  }

  /** A ready item, or undefined when none is; either way a refill starts. */
  take(): T | undefined {
    let item = this.ready.shift();
    while (item !== undefined && !this.opts.isAlive(item)) {
      this.discard(item);
      item = this.ready.shift();
    }
    // Refill after the caller has its item: starting a create costs a little synchronous work.
    setImmediate(() => this.fill());
    return item;
  }

  /** Takes a dead item out (its container exited while waiting). */
  remove(item: T): void {
    const index = this.ready.indexOf(item);
    if (index === -1) return;
    this.ready.splice(index, 1);
    this.discard(item);
    this.fill();
  }

  /** Starts creating items until the pool is full. Never throws; failures retry with backoff. */
  fill(): void {
    if (this.closed || this.retryTimer) return;
    while (this.ready.length + this.creating < this.opts.size) {
      this.creating++;
      void this.opts.create().then(
        (item) => {
          this.creating--;
          this.retryDelayMs = this.opts.retryDelayMs ?? 1_000;
          if (this.closed) return this.discard(item);
          this.ready.push(item);
          this.notifyIfFull();
        },
        (error: unknown) => {
          this.creating--;
          this.opts.onError?.(error);
          if (this.closed || this.retryTimer) return;
          this.retryTimer = setTimeout(() => {
            this.retryTimer = null;
            this.fill();
          }, this.retryDelayMs);
          this.retryDelayMs = Math.min(this.retryDelayMs * 2, MAX_RETRY_DELAY_MS);
        },
      );
    }
    this.notifyIfFull();
  }

  /** Resolves when the pool holds `size` ready items (or is closed). */
  whenFull(): Promise<void> {
    if (this.closed || this.ready.length >= this.opts.size) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  /** Stops refilling and disposes every waiting item; in-flight creates are disposed as they land. */
  async drain(): Promise<void> {
    this.closed = true;
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.retryTimer = null;
    const items = this.ready.splice(0);
    await Promise.allSettled(items.map((item) => this.opts.dispose(item)));
    this.notifyIfFull();
  }

  private discard(item: T): void {
    this.opts.dispose(item).catch((error: unknown) => this.opts.onError?.(error));
  }

  private notifyIfFull(): void {
    if (!this.closed && this.ready.length < this.opts.size) return;
    const waiters = this.waiters;
    this.waiters = [];
    for (const wake of waiters) wake();
  }
}
