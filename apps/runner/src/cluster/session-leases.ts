import type { Repositories } from "@berth/db";
import type { SandboxDriver } from "@berth/sandbox";

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
      /** A session another runner took while this one could not renew is let go of here (never stopped). */
      driver: Pick<SandboxDriver, "list" | "detach">;
      runnerId: string;
      leaseMs: number;
      now?: () => number;
      onError: (error: unknown) => void;
      log: (line: string) => void;
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
    this.renewing ??= this.renewOnce().finally(() => {
      this.renewing = null;
    });
    return this.renewing;
  }

  /**
   * The sessions attached here are read before the UPDATE: each one's row named this runner before it was
   * attached (create and take-over write the row first), so one another runner holds afterwards was taken from
   * this runner after its lease lapsed (a pause, the database out of reach). Then both would be attached to the
   * agent: this runner lets go.
   */
  private async renewOnce(): Promise<number> {
    const { leases, driver, runnerId } = this.deps;
    const attached = driver.list().filter((s) => s.status === "ready").map((s) => s.sessionId);
    const renewed = await leases.renewAll(runnerId, this.expiresAt());
    for (const sessionId of await leases.heldElsewhere(attached, runnerId)) {
      this.deps.log(`session ${sessionId} is held by another runner now (this runner's lease on it lapsed): let go of its container`);
      await driver.detach(sessionId);
    }
    return renewed;
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
