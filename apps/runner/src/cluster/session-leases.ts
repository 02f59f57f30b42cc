import type { Repositories } from "@berth/db";

/**
 * This runner's hold on its sessions (docs/scale-out.md): a session it creates or adopts is held until now + the
 * lease, and every lease/3 one UPDATE extends all of them. A runner that stops renewing (dead, or cut off from the
 * database for a whole lease) loses them to the first runner whose failover sweep wins the compare-and-set. With
 * one runner on SQLite it is the same code: one cheap UPDATE per interval, and nobody else to take anything.
 */
export class SessionLeases {
  private timer: NodeJS.Timeout | null = null;
  private renewing: Promise<number> | null = null;

  constructor(
    private readonly deps: {
      leases: Repositories["leases"];
      runnerId: string;
      leaseMs: number;
      now?: () => number;
      onError: (error: unknown) => void;
    },
  ) {}

  get runnerId(): string {
    return this.deps.runnerId;
  }

  get leaseMs(): number {
    return this.deps.leaseMs;
  }

  now(): Date {
    return new Date((this.deps.now ?? Date.now)());
  }

  /** Until when a session this runner takes now is held. */
  expiresAt(): Date {
    return new Date(this.now().getTime() + this.deps.leaseMs);
  }

  /** Extends every session this runner holds; one renewal at a time. The count renewed. */
  renew(): Promise<number> {
    this.renewing ??= this.deps.leases.renewAll(this.deps.runnerId, this.expiresAt()).finally(() => {
      this.renewing = null;
    });
    return this.renewing;
  }

  /** Renews every lease/3, so two renewals can fail in a row before the lease runs out. */
  start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => void this.renew().catch(this.deps.onError), Math.max(1, Math.floor(this.deps.leaseMs / 3)));
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }
}
