/** What a subscriber gets: the message's bytes, as published. */
export type ClusterListener = (message: Buffer) => void;

/**
 * Messages between the runners of one deployment (docs/scale-out.md): named channels carrying bytes, at most
 * once, in the order each publisher sent them. Redis pub/sub when BERTH_REDIS_URL is set
 * (`redis-cluster-bus.ts`); in-process when there is one runner. Channels are namespaced by their users
 * (`invalidate`, `approval`, `log:<runId>`, `runner:<runnerId>`); a runner hears its own messages too, so a
 * listener that must not act twice checks what it is given, not who sent it.
 */
export interface ClusterBus {
  /** Resolves with how many subscriptions (runners, this one included) the message was handed to. */
  publish(channel: string, message: Buffer | string): Promise<number>;
  /**
   * Resolves once the subscription is active, so a message published after it resolves reaches `listener`
   * (what a follower needs before it reads the durable copy and then splices the live tail). The returned
   * function ends the subscription.
   */
  subscribe(channel: string, listener: ClusterListener): Promise<() => Promise<void>>;
  /** How many runners (subscriber connections) are subscribed to the channel now: whether a publish reaches anyone. */
  subscribers(channel: string): Promise<number>;
  close(): Promise<void>;
}

/** One runner: delivery in-process, on a later microtask as Redis would deliver it (never inside publish). */
export class LocalClusterBus implements ClusterBus {
  private readonly channels = new Map<string, Set<ClusterListener>>();

  publish(channel: string, message: Buffer | string): Promise<number> {
    const listeners = this.channels.get(channel);
    if (!listeners || listeners.size === 0) return Promise.resolve(0);
    const bytes = typeof message === "string" ? Buffer.from(message) : message;
    const snapshot = [...listeners];
    queueMicrotask(() => {
      for (const listener of snapshot) listener(bytes);
    });
    return Promise.resolve(snapshot.length);
  }

  subscribe(channel: string, listener: ClusterListener): Promise<() => Promise<void>> {
    let listeners = this.channels.get(channel);
    if (!listeners) this.channels.set(channel, (listeners = new Set()));
    listeners.add(listener);
    return Promise.resolve(() => {
      listeners.delete(listener);
      if (listeners.size === 0) this.channels.delete(channel);
      return Promise.resolve();
    });
  }

  subscribers(channel: string): Promise<number> {
    return Promise.resolve(this.channels.has(channel) ? 1 : 0);
  }

  close(): Promise<void> {
    this.channels.clear();
    return Promise.resolve();
  }
}
