import type { LeasedSession, Repositories } from "@berth/db";
import type { AdoptOutcome, SandboxDriver } from "@berth/sandbox";
import type { SessionLeases } from "./session-leases";

/** What a take-over found: the driver's outcome, or `not_running` for a session that had no sandbox to adopt. */
export type TakeOverOutcome = AdoptOutcome | "not_running";

export interface TakeOver {
  sessionId: string;
  fromRunnerId: string | null;
  outcome: TakeOverOutcome;
}

const RUNNING = new Set(["starting", "ready"]);

/**
 * Failover (docs/scale-out.md): every lease/2 this runner looks for live sessions whose holder stopped renewing.
 * For each it wins a compare-and-set on the row (two runners never both take one), then adopts the container on
 * whichever Docker host it is (the agent is waiting on stdin), lets the session's status follow what it found,
 * and ends what the dead runner left in flight (recovery, one session at a time).
 */
export class Failover {
  private timer: NodeJS.Timeout | null = null;
  private sweeping: Promise<TakeOver[]> | null = null;

  constructor(
    private readonly deps: {
      leases: SessionLeases;
      repo: Repositories["leases"];
      driver: Pick<SandboxDriver, "adopt">;
      /** The row is this runner's now: the session's status follows the outcome (clients hear session:status). */
      settle: (sessionId: string, outcome: TakeOverOutcome) => Promise<void>;
      /** Ends the runs and processes the previous holder left in the session. */
      recover: (sessionId: string, fromRunnerId: string | null) => Promise<void>;
      log: (line: string) => void;
      /**
       * Whether the runner holding a lapsed lease still accepts connections (holder-probe.ts). A holder that does is
       * alive but late to renew: its sessions are left to it until the lease is `holderGraceMs` past its expiry.
       * Unset: a lapsed lease is taken at once.
       */
      holderAnswers?: (runnerId: string) => Promise<boolean>;
      /** How long past its expiry a lease of a holder that still answers is left alone (default: twice the lease). */
      holderGraceMs?: number;
    },
  ) {}

  /** Sessions left to a late holder, so each is logged once per lapse. */
  private readonly leftToHolder = new Set<string>();

  /** One sweep at a time; a sweep asked for while one runs gets that one. */
  sweep(): Promise<TakeOver[]> {
    this.sweeping ??= this.sweepOnce().finally(() => {
      this.sweeping = null;
    });
    return this.sweeping;
  }

  start(): void {
    if (this.timer) return;
    const every = Math.max(1, Math.floor(this.deps.leases.leaseMs / 2));
    this.timer = setInterval(() => void this.sweep().catch((error: unknown) => this.deps.log(`failover sweep failed: ${(error as Error).message}`)), every);
    this.timer.unref();
  }

  /** Stops sweeping and waits for a sweep in progress, so nothing is half taken over at shutdown. */
  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.sweeping?.catch(() => undefined);
  }

  private async sweepOnce(): Promise<TakeOver[]> {
    const { leases, repo } = this.deps;
    const now = leases.now();
    const taken: TakeOver[] = [];
    const grace = this.deps.holderGraceMs ?? 2 * leases.leaseMs;
    const answers = new Map<string, Promise<boolean>>();
    for (const session of await repo.lapsed(now, leases.runnerId)) {
      const { runnerId: holder, expiresAt } = session;
      const { holderAnswers } = this.deps;
      if (holder && expiresAt && holderAnswers && now.getTime() - expiresAt.getTime() < grace) {
        let alive = answers.get(holder);
        if (!alive) answers.set(holder, (alive = holderAnswers(holder).catch(() => false)));
        if (await alive) {
          if (!this.leftToHolder.has(session.sessionId)) {
            this.leftToHolder.add(session.sessionId);
            this.deps.log(`session ${session.sessionId}: runner ${holder} is late renewing its lease but still accepts connections; left to it for up to ${grace} ms past the lease`);
          }
          continue;
        }
      }
      this.leftToHolder.delete(session.sessionId);
      const won = await repo.takeOver(session.sessionId, { from: session.runnerId, to: leases.runnerId, now, expiresAt: leases.expiresAt() });
      if (!won) continue;
      try {
        taken.push(await this.takeOver(session));
      } catch (error) {
        // The row is ours either way: the next start's reconcile (or a restart by a user) deals with the rest.
        this.deps.log(`failover of session ${session.sessionId} from runner ${session.runnerId ?? "(none)"} failed: ${(error as Error).message}`);
      }
    }
    return taken;
  }

  private async takeOver(session: LeasedSession): Promise<TakeOver> {
    const { sessionId, runnerId: fromRunnerId, volumeName } = session;
    const outcome: TakeOverOutcome = RUNNING.has(session.status)
      ? await this.deps.driver.adopt(sessionId, { fromRunnerId: fromRunnerId ?? "", ...(volumeName ? { volumeName } : {}) })
      : "not_running";
    await this.deps.settle(sessionId, outcome);
    await this.deps.recover(sessionId, fromRunnerId);
    this.deps.log(`took session ${sessionId} over from runner ${fromRunnerId ?? "(none)"}: ${outcome}`);
    return { sessionId, fromRunnerId, outcome };
  }
}
