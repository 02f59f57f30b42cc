export interface WarmPoolOptions<T> {
  /** The base: ready items kept while nothing is asked for; 0 disables the pool. */
  size: number;
  /**
   * The most items (ready and starting) the pool grows to while items are taken quickly; default `size`
   * (a fixed pool). The Docker driver derives it from a memory budget (warm-pool-budget.ts).
   */
  maxSize?: number;
  /** How long a take counts as demand: the pool holds `size` plus the takes of this window. Default 2 min. */
  demandWindowMs?: number;
  /** Creates running at once at most, reached when items are taken quickly. Default 4. */
  maxParallel?: number;
  create: () => Promise<T>;
  dispose: (item: T) => Promise<void>;
  /** An item that died while waiting is skipped (and disposed) by `take`. */
  isAlive: (item: T) => boolean;
  onError?: (error: unknown) => void;
  /** First retry delay after a failed create; doubles up to 30 s. */
  retryDelayMs?: number;
  /** The clock demand is read on (tests move it by hand). Default `Date.now`. */
  now?: () => number;
  /** How often the pool re-reads demand, so it shrinks back once takes stop; 0: only on take and fill. Default 10 s. */
  adjustEveryMs?: number;
}

const MAX_RETRY_DELAY_MS = 30_000;
const DEFAULT_DEMAND_WINDOW_MS = 120_000;
const DEFAULT_MAX_PARALLEL = 4;
/** Takes within this count as a high rate: that many creates run at once (up to maxParallel). */
const RECENT_MS = 10_000;

/**
 * Ready-made items (started, handshaken containers) handed out at once and refilled in the background,
 * ahead of demand: the pool holds its base `size` plus one item for every take of the last `demandWindowMs`
 * (up to `maxSize`), so a second burst of sessions finds what the first one used, and it shrinks back to
 * `size` as those takes age out. Refills run `size` at a time while takes are rare, and several more at once
 * (up to `maxParallel`) when many came within the last 10 s.
 */
export class WarmPool<T> {
  private readonly ready: T[] = [];
  private creating = 0;
  private closed = false;
  private retryDelayMs: number;
  private retryTimer: NodeJS.Timeout | null = null;
  private adjustTimer: NodeJS.Timeout | null = null;
  private waiters: Array<() => void> = [];
  /** When each take of the demand window happened, oldest first. */
  private readonly takes: number[] = [];
  private readonly maxSize: number;
  private readonly now: () => number;

  constructor(private readonly opts: WarmPoolOptions<T>) {
    this.retryDelayMs = opts.retryDelayMs ?? 1_000;
    this.maxSize = opts.size === 0 ? 0 : Math.max(opts.size, opts.maxSize ?? opts.size);
    this.now = opts.now ?? Date.now;
  }

  get available(): number {
    return this.ready.length;
  }

  get pending(): number {
    return this.creating;
  }

  /** How many ready items the pool aims for now: its base plus recent demand, within its maximum. */
  get target(): number {
    return Math.min(this.maxSize, this.opts.size + this.recentTakes(this.demandWindowMs));
  }

  /** The ready items, oldest first (reconcile keeps their volumes). */
  items(): readonly T[] {
    return this.ready;
  }

  /** A ready item, or undefined when none is; either way the take counts as demand and a refill starts. */
  take(): T | undefined {
    if (this.opts.size > 0) this.takes.push(this.now());
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

  /**
   * Brings the pool to its target now: disposes the oldest ready items beyond it (demand stopped) and starts
   * creates up to it. Never throws; failures retry with backoff.
   */
  fill(): void {
    if (this.closed) return;
    this.startAdjusting();
    const target = this.target;
    if (this.ready.length > target)
      for (const item of this.ready.splice(0, this.ready.length - target)) this.discard(item);
    // A fixed pool refills all of its base at once, as it always did; demand adds parallel creates on top.
    const parallel = Math.max(
      this.opts.size,
      Math.min(this.opts.maxParallel ?? DEFAULT_MAX_PARALLEL, this.recentTakes(RECENT_MS)),
    );
    while (!this.retryTimer && this.ready.length + this.creating < target && this.creating < parallel) {
      this.creating++;
      void this.opts.create().then(
        (item) => {
          this.creating--;
          this.retryDelayMs = this.opts.retryDelayMs ?? 1_000;
          if (this.closed) return this.discard(item);
          this.ready.push(item);
          this.fill();
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

  /** Resolves when the pool holds its target of ready items (or is closed). */
  whenFull(): Promise<void> {
    if (this.closed || this.ready.length >= this.target) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  /** Stops refilling and disposes every waiting item; in-flight creates are disposed as they land. */
  async drain(): Promise<void> {
    this.closed = true;
    if (this.retryTimer) clearTimeout(this.retryTimer);
    if (this.adjustTimer) clearInterval(this.adjustTimer);
    this.retryTimer = null;
    this.adjustTimer = null;
    const items = this.ready.splice(0);
    await Promise.allSettled(items.map((item) => this.opts.dispose(item)));
    this.notifyIfFull();
  }

  private get demandWindowMs(): number {
    return this.opts.demandWindowMs ?? DEFAULT_DEMAND_WINDOW_MS;
  }

  /** Takes within the last `ms`; forgets those older than the demand window. */
  private recentTakes(ms: number): number {
    const now = this.now();
    while (this.takes.length > 0 && now - this.takes[0]! > this.demandWindowMs) this.takes.shift();
    let count = 0;
    for (let i = this.takes.length - 1; i >= 0 && now - this.takes[i]! <= ms; i--) count++;
    return count;
  }

  /** A pool that can grow must also notice when demand stops, without a take to wake it. */
  private startAdjusting(): void {
    const every = this.opts.adjustEveryMs ?? 10_000;
    if (this.adjustTimer || every <= 0 || this.maxSize <= this.opts.size) return;
    this.adjustTimer = setInterval(() => this.fill(), every);
    this.adjustTimer.unref();
  }

  private discard(item: T): void {
    this.opts.dispose(item).catch((error: unknown) => this.opts.onError?.(error));
  }

  private notifyIfFull(): void {
    if (!this.closed && this.ready.length < this.target) return;
    const waiters = this.waiters;
    this.waiters = [];
    for (const wake of waiters) wake();
  }
}
