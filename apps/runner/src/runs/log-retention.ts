import type { RunRepository } from "@berth/db";
import type { RunLogStore } from "../cluster/run-log-store";

const DAY_MS = 24 * 60 * 60 * 1000;
/** How often the runner looks for logs past retention. */
export const RETENTION_SWEEP_MS = 60 * 60 * 1000;
/** The first look, after the runner has started (not on its way up). */
export const RETENTION_FIRST_SWEEP_MS = 60 * 1000;
/** Runs removed per page: one query of the runs, one removal. */
const PAGE = 500;

export interface LogRetentionDeps {
  runs: Pick<RunRepository, "endedBefore">;
  logs: Pick<RunLogStore, "removeRuns">;
  /** BERTH_LOG_RETENTION_DAYS: a run's log is kept this many days after the run ended; 0 keeps every log. */
  days: number;
  log(line: string): void;
  now?: () => number;
}

/**
 * Removes the logs of runs that ended more than `days` ago (BERTH_LOG_RETENTION_DAYS, README): their files, and with
 * the database store their chunks and the other runners' copies. The run's row and its receipt stay, so the receipt
 * still verifies and the run page says how much it printed; its log reads empty. Every runner sweeps (each has files
 * of its own); the database's part is idempotent, so two sweeps of the same runs remove nothing twice.
 */
export class LogRetention {
  /** The last run removed: a sweep goes on from it (runs end in time order, so nothing earlier is new). */
  private after: { endedAt: Date; id: string } | undefined;
  private timer: NodeJS.Timeout | undefined;
  private sweeping: Promise<number> | undefined;

  constructor(private readonly deps: LogRetentionDeps) {}

  /** Sweeps once a minute after start, then hourly; nothing when retention is off. */
  start(): void {
    if (this.deps.days === 0) return;
    const every = () => {
      void this.sweep();
      this.timer = setTimeout(every, RETENTION_SWEEP_MS).unref();
    };
    this.timer = setTimeout(every, RETENTION_FIRST_SWEEP_MS).unref();
  }

  /** Removes what is past retention now; resolves with how many runs' logs went. One sweep at a time. */
  sweep(): Promise<number> {
    this.sweeping ??= this.removePastRetention()
      .catch((error: unknown) => {
        this.deps.log(`log retention: sweep failed, tried again in an hour: ${(error as Error).message}`);
        return 0;
      })
      .finally(() => (this.sweeping = undefined));
    return this.sweeping;
  }

  async stop(): Promise<void> {
    clearTimeout(this.timer);
    await this.sweeping;
  }

  private async removePastRetention(): Promise<number> {
    if (this.deps.days === 0) return 0;
    const before = new Date((this.deps.now ?? Date.now)() - this.deps.days * DAY_MS);
    let removed = 0;
    for (;;) {
      const page = await this.deps.runs.endedBefore(before, { limit: PAGE, ...(this.after ? { after: this.after } : {}) });
      if (page.length === 0) break;
      await this.deps.logs.removeRuns(page.map((run) => run.id));
      removed += page.length;
      this.after = page[page.length - 1];
      if (page.length < PAGE) break;
    }
    if (removed > 0) this.deps.log(`log retention: swept the logs of ${removed} run(s) that ended before ${before.toISOString()}`);
    return removed;
  }
}
