import type { RunLogChunkRecord, RunLogChunkRepository, RunRepository } from "@berth/db";
import type { RunnerEvents } from "../events/runner-events";
import { RunLogs, logSize, type RunLogSink, type StoredChunk } from "../runs/run-logs";
import type { ClusterBus } from "./cluster-bus";
import { LocalLogCopy } from "./local-log-copy";
import { encodeLogChunkMessage, logChannel } from "./log-chunk-message";
import { RemoteLogMirror } from "./remote-log-mirror";
import type { RunLogStore, StoredRun } from "./run-log-store";

/** How often a followed run's row and chunks are read again (lost live messages, a writer that died). */
const POLL_MS = 1_000;

export interface DatabaseLogStoreDeps {
  chunks: Pick<RunLogChunkRepository, "append" | "list" | "count">;
  runs: Pick<RunRepository, "get">;
  bus: ClusterBus;
  dataDir: string;
  events: RunnerEvents;
  log(line: string): void;
  pollMs?: number;
}

interface Copy {
  mirror: RemoteLogMirror;
  copy: LocalLogCopy;
  /** Subscribed and caught up with the database. */
  started: Promise<void>;
  /** What a reader waits for: caught up with the database (a live run), or whole (an ended one). */
  ready: Promise<void>;
  /** Settles once the mirror ended and the copy's files are closed. */
  closed: Promise<void>;
  /** Its first read failed: not whole. */
  failed: boolean;
}

/**
 * Run logs in PostgreSQL, the local files a cache (BERTH_LOG_STORE=database, docs/scale-out.md). The run's
 * runner stores each batch of chunks in one statement before it announces them, then publishes the batch on
 * `log:<runId>`. Another runner asked for the log copies it into its own files from the database (a run that
 * ended: once, then it reads its files) or, for a live run, follows it with a RemoteLogMirror into a
 * LocalLogCopy, which tells this runner's followers each chunk as the run's own runner tells its own.
 */
export class DatabaseLogStore implements RunLogStore {
  /** Runs whose files here are whole: read without asking the database again. */
  private readonly whole = new Set<string>();
  private readonly copies = new Map<string, Copy>();
  private closing = false;

  constructor(private readonly deps: DatabaseLogStoreDeps) {}

  sinkFor(runId: string): RunLogSink {
    let seq = 0;
    return {
      store: async (chunks: StoredChunk[]) => {
        const records = chunks.map((chunk, i): RunLogChunkRecord => ({ runId, seq: seq + i, ...chunk }));
        await this.deps.chunks.append(records);
        seq += records.length;
        this.publish(runId, { chunks: records });
      },
      end: () => this.publish(runId, { chunks: [], end: seq }),
    };
  }

  async ready(run: StoredRun): Promise<void> {
    if (this.whole.has(run.id)) return;
    const copying = this.copies.get(run.id);
    if (copying) {
      copying.copy.processId ??= processIdOf(run);
      return copying.ready;
    }
    // This runner's own run, still being written: its files are the log.
    if (RunLogs.writing(this.deps.dataDir, run.id)) return;
    if (run.status !== "running") {
      if (logSize(this.deps.dataDir, run.id, "stdout") === run.stdoutBytes && logSize(this.deps.dataDir, run.id, "stderr") === run.stderrBytes) {
        this.whole.add(run.id);
        return;
      }
      // A log from before the database store (or one that printed nothing): the files are all there is.
      if ((await this.deps.chunks.count(run.id)) === 0) return;
    }
    return this.copyOf(run).ready;
  }

  async completeFromDatabase(runId: string): Promise<void> {
    if (this.whole.has(runId) || (RunLogs.writing(this.deps.dataDir, runId) && !this.copies.has(runId))) return;
    let copying = this.copies.get(runId);
    if (!copying) {
      const run = await this.deps.runs.get(runId);
      if (!run || (await this.deps.chunks.count(runId)) === 0) return;
      copying = this.copyOf(run);
      await copying.started;
    }
    await copying.mirror.catchUpAndStop();
    await copying.closed;
  }

  async close(): Promise<void> {
    this.closing = true;
    const copies = [...this.copies.values()];
    await Promise.all(copies.map(async (c) => {
      await c.mirror.stop();
      await c.closed;
    }));
  }

  private copyOf(run: StoredRun): Copy {
    const copy = new LocalLogCopy(this.deps.dataDir, run, this.deps.events, processIdOf(run));
    const mirror = new RemoteLogMirror(run.id, {
      bus: this.deps.bus,
      list: (runId, fromSeq, limit) => this.deps.chunks.list(runId, fromSeq, limit),
      state: async (runId) => {
        const row = await this.deps.runs.get(runId);
        return row ? { running: row.status === "running", stdoutBytes: row.stdoutBytes, stderrBytes: row.stderrBytes } : null;
      },
      apply: (chunk) => copy.apply(chunk),
      pollMs: this.deps.pollMs ?? POLL_MS,
      onError: (error) => this.deps.log(`run ${run.id}: following its log failed for now: ${(error as Error).message}`),
    });
    const closed = mirror.ended
      .then(() => copy.close())
      .then(() => {
        if (this.copies.get(run.id) === entry) this.copies.delete(run.id);
        // Stopped by shutdown or a failed read, the copy may be short: the next reader copies it again.
        if (!this.closing && !entry.failed) this.whole.add(run.id);
      })
      .catch((error: unknown) => this.deps.log(`run ${run.id}: closing its log copy failed: ${(error as Error).message}`));
    const started = mirror.start();
    // A run that ended: whole before anyone reads it (the row can be a moment ahead of its last chunks).
    const ready = run.status === "running" ? started : started.then(() => mirror.checkNow()).then(() => closed);
    const entry: Copy = { mirror, copy, started, ready, closed, failed: false };
    this.copies.set(run.id, entry);
    void ready.catch(() => {
      entry.failed = true;
      if (this.copies.get(run.id) === entry) this.copies.delete(run.id);
      return mirror.stop();
    });
    return entry;
  }

  private publish(runId: string, message: Parameters<typeof encodeLogChunkMessage>[0]): void {
    // Followers that miss it read the database (a gap in the sequence, or their poll).
    this.deps.bus.publish(logChannel(runId), encodeLogChunkMessage(message)).catch((error: unknown) => this.deps.log(`run ${runId}: publishing its log failed: ${(error as Error).message}`));
  }
}

function processIdOf(run: StoredRun): string | null {
  const details = run.details as Record<string, unknown> | null | undefined;
  return typeof details?.processId === "string" ? details.processId : null;
}
