/**
 * A bounded in-memory cache of values read from the database, emptied by invalidations. A read that was in
 * flight while something was invalidated is not kept (it may hold the value from before the change): the
 * caller takes `epoch` before reading and hands it back to `set`. Entries also age out after `ttlMs`, which
 * bounds how long a change made outside the runner (a row edited by hand) goes unseen.
 */
export class InvalidatingCache<V> {
  private readonly entries = new Map<string, { value: V; expiresAt: number }>();
  private generation = 0;

  constructor(private readonly opts: { ttlMs: number; maxEntries: number; now?: () => number }) {}

  /** Changes on every invalidation; take it before a read whose result goes to `set`. */
  get epoch(): number {
    return this.generation;
  }

  get(key: string): V | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    if (entry.expiresAt <= this.now()) {
      this.entries.delete(key);
      return undefined;
    }
    return entry.value;
  }

  /** Keeps a value read at `epoch`, until `expiresAt` at the latest (e.g. a credential's own expiry). */
  set(key: string, value: V, epoch: number, expiresAt = Number.POSITIVE_INFINITY): void {
    if (epoch !== this.generation) return;
    // Oldest first out: a Map iterates in insertion order.
    if (this.entries.size >= this.opts.maxEntries) this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(key, { value, expiresAt: Math.min(expiresAt, this.now() + this.opts.ttlMs) });
  }

  delete(key: string): void {
    this.generation++;
    this.entries.delete(key);
  }

  /** Drops every entry `matches` picks (the sessions of a revoked token, say). */
  deleteWhere(matches: (value: V) => boolean): void {
    this.generation++;
    for (const [key, entry] of this.entries) if (matches(entry.value)) this.entries.delete(key);
  }

  private now(): number {
    return (this.opts.now ?? Date.now)();
  }
}
