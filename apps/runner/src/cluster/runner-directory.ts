import type { Repositories } from "@berth/db";

/** Where a session's holder is reached. */
export interface RunnerLocation {
  runnerId: string;
  url: string;
}

/**
 * The runners of the deployment (the Runner table): this runner's row with its URL and heartbeat, and which runner
 * holds a session, for forwarding a request to it (cluster/forward-to-owner.ts).
 */
export class RunnerDirectory {
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly deps: {
      repos: Pick<Repositories, "runners" | "leases">;
      runnerId: string;
      /** How often the heartbeat is written (the lease renewal's cadence). */
      heartbeatMs: number;
      now?: () => number;
      onError: (error: unknown) => void;
    },
  ) {}

  get runnerId(): string {
    return this.deps.runnerId;
  }

  private now(): number {
    return (this.deps.now ?? Date.now)();
  }

  /** This runner is up at `url` (once it listens): its row is written and its heartbeat starts. */
  async register(url: string): Promise<void> {
    const { repos, runnerId, heartbeatMs } = this.deps;
    await repos.runners.register({ id: runnerId, url, at: new Date(this.now()) });
    if (this.timer) return;
    this.timer = setInterval(() => {
      void repos.runners
        .heartbeat(runnerId, new Date(this.now()))
        .then((found) => (found ? undefined : repos.runners.register({ id: runnerId, url, at: new Date(this.now()) })))
        .catch(this.deps.onError);
    }, heartbeatMs);
    this.timer.unref();
  }

  /**
   * The other runner that holds the session under a live lease, and its URL. Null when this runner holds it, when
   * nobody does (no such session, an unowned row, a lapsed lease: failover is about to give it to a live runner)
   * or when its holder has no row: then the session is served here or not at all.
   */
  async ownerOf(sessionId: string): Promise<RunnerLocation | null> {
    // The lease and its holder's row in one query, read each time: a runner restarted on another port has
    // re-registered its row.
    const lease = await this.deps.repos.leases.withHolder(sessionId);
    if (!lease?.runnerId || lease.runnerId === this.deps.runnerId) return null;
    if (!lease.expiresAt || lease.expiresAt.getTime() < this.now()) return null;
    return lease.holderUrl === null ? null : { runnerId: lease.runnerId, url: lease.holderUrl };
  }

  close(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }
}
