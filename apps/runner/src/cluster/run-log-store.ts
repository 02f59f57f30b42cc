import { databaseKind, type RunRecord } from "@berth/db";
import type { Env } from "../env";
import fs from "node:fs";
import { RunLogs, type RunLogSink } from "../runs/run-logs";

/** What a store needs of a run's row to know whether this runner's files of it are whole. */
export type StoredRun = Pick<RunRecord, "id" | "sessionId" | "status" | "stdoutBytes" | "stderrBytes" | "details">;

/**
 * Where run logs live (BERTH_LOG_STORE, docs/scale-out.md). Every reader reads the local files (RunLogs,
 * LogReader); the store makes sure they are there: `local` (one runner) has nothing to do, `database` copies the
 * log of a run another runner wrote, and follows it live while it runs (cluster/database-log-store.ts).
 */
export interface RunLogStore {
  /**
   * For the run's own runner: where each batch is stored before it is shown; undefined: the files only. `resume`:
   * a run taken up at failover, whose stored chunks continue.
   */
  sinkFor(runId: string, resume?: boolean): RunLogSink | undefined;
  /** Before this runner reads a run's log from its files: they hold what the run's runner stored (and follow it live). */
  ready(run: StoredRun): Promise<void>;
  /**
   * Makes this runner's files of a run complete from the database and stops following it: after a failover, the
   * run's writer is gone and its receipt is sealed from the logs as stored.
   */
  completeFromDatabase(runId: string): Promise<void>;
  /** The session was deleted: its runs' logs go with it, from shared storage and from every runner's files. */
  removeSession(sessionId: string): Promise<void>;
  /**
   * These ended runs' logs are past retention (runs/log-retention.ts): their files here go, and with the database
   * store their chunks and every other runner's copies. A run this runner still writes keeps its log.
   */
  removeRuns(runIds: string[]): Promise<void>;
  close(): Promise<void>;
}

/** One runner, logs in its files only. */
export class LocalRunLogStore implements RunLogStore {
  constructor(private readonly dataDir: string) {}

  sinkFor(): undefined {
    return undefined;
  }

  ready(): Promise<void> {
    return Promise.resolve();
  }

  completeFromDatabase(): Promise<void> {
    return Promise.resolve();
  }

  /** One runner's files are kept with their runs, as they always were (docs/scale-out.md, Lifecycle). */
  removeSession(): Promise<void> {
    return Promise.resolve();
  }

  async removeRuns(runIds: string[]): Promise<void> {
    for (const runId of runIds) {
      if (!RunLogs.writing(this.dataDir, runId)) await fs.promises.rm(RunLogs.dirFor(this.dataDir, runId), { recursive: true, force: true });
    }
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}

/** BERTH_LOG_STORE, its default resolved: the database on PostgreSQL (where several runners can share it), else local files. */
export function runLogStoreKind(env: Pick<Env, "BERTH_LOG_STORE" | "DATABASE_URL">): "local" | "database" {
  return env.BERTH_LOG_STORE || (databaseKind(env.DATABASE_URL) === "postgresql" ? "database" : "local");
}
