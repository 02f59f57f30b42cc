/** What a cached read can go stale on: a credential revoked, a user disabled, removed or re-roled, a session row changed. */
export type Invalidation = { kind: "credential"; id: string } | { kind: "user"; id: string } | { kind: "session"; id: string };

export type InvalidationListener = (event: Invalidation) => void;

/**
 * Carries invalidations to every cache that may hold the stale value. This runner's own caches hear them
 * synchronously, before the call that changed the row returns, so a revoked credential is refused on the very
 * next request. With several runners, ClusterInvalidationBus (cluster/cluster-invalidation-bus.ts) puts the
 * `invalidate` channel behind the same two methods, so every runner's caches hear it too.
 */
export interface InvalidationBus {
  publish(event: Invalidation): void;
  subscribe(listener: InvalidationListener): () => void;
  /**
   * Resolves once what was published so far has been applied by the other runners' caches (each confirmed it);
   * at once for one runner. A revoking route awaits it before it answers, so the next request, to any runner, is
   * refused.
   */
  sent(): Promise<void>;
}

/** The in-process bus: one runner's caches. */
export class LocalInvalidationBus implements InvalidationBus {
  private readonly listeners = new Set<InvalidationListener>();

  publish(event: Invalidation): void {
    for (const listener of this.listeners) listener(event);
  }

  subscribe(listener: InvalidationListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  sent(): Promise<void> {
    return Promise.resolve();
  }
}
