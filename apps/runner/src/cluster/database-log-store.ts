import fs from "node:fs";
import { z } from "zod";
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
/** How long the run's runner trusts its answer to "does another runner follow this run?" before asking Redis again. */
const FOLLOWERS_TTL_MS = 500;
/** Where a runner that deleted a session's logs tells the others to drop their copies of them. */
const REMOVED_CHANNEL = "logs:removed";
/** How long close() waits for what runs' ends started. */
const CLOSE_WAIT_MS = 5_000;
const RemovedSchema = z.object({ runIds: z.array(z.string().regex(/^run_[0-9A-Za-z_-]+$/)) });

export interface DatabaseLogStoreDeps {
  chunks: Pick<RunLogChunkRepository, "append" | "list" | "count" | "deleteForSession" | "deleteForRuns">;
  runs: Pick<RunRepository, "get">;
  bus: ClusterBus;
  dataDir: string;
  events: RunnerEvents;
  log(line: string): void;
  pollMs?: number;
  /** How long an answer to "does anyone follow this run?" is kept (FOLLOWERS_TTL_MS). */
  followersTtlMs?: number;
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
 * `log:<runId>` when another runner subscribes there. Another runner asked for the log copies it into its own
 * files from the database (a run that ended: once, then it reads its files) or, for a live run, follows it with a
 * RemoteLogMirror into a LocalLogCopy, which tells this runner's followers each chunk as the run's own runner
 * tells its own.
 */
export class DatabaseLogStore implements RunLogStore {
  /** Runs whose files here are whole: read without asking the database again. */
  private readonly whole = new Set<string>();
  private readonly copies = new Map<string, Copy>();
  /** Per run this runner writes: whether anyone follows it (asked at most every FOLLOWERS_TTL_MS), its publishes in order. */
  private readonly publishing = new Map<string, { until: number; followed: Promise<boolean>; chain: Promise<void> }>();
  private closing = false;
  /** Runs of deleted sessions this runner was still writing, by session: deleted again once their log ends. */
  private readonly removedWhileWriting = new Map<string, string>();
  /** The subscription to REMOVED_CHANNEL (its end, for close). */
  private readonly removals: Promise<() => Promise<void>>;

  constructor(private readonly deps: DatabaseLogStoreDeps) {
    this.removals = deps.bus.subscribe(REMOVED_CHANNEL, (bytes) => {
      let json: unknown;
      try {
        json = JSON.parse(bytes.toString("utf8"));
      } catch {
        return;
      }
      const removed = RemovedSchema.safeParse(json);
      if (removed.success) void this.dropCopies(removed.data.runIds);
    });
    this.removals.catch((error: unknown) => deps.log(`listening for deleted logs failed: ${(error as Error).message}`));
  }

  /** Work a run's end starts and nobody awaits (its end published, a late removal): close() waits for it. */
  private readonly ending = new Set<Promise<unknown>>();

  private track(work: Promise<unknown>): void {
    this.ending.add(work);
    void work.finally(() => this.ending.delete(work));
  }

  sinkFor(runId: string, resume = false): RunLogSink {
    let seq = 0;
    // Taken up at failover: the run's chunks continue after those its first runner stored.
    let counted = resume ? null : Promise.resolve();
    const started = () =>
      (counted ??= this.deps.chunks.count(runId).then((count) => {
        seq = count;
      }));
    return {
      store: async (chunks: StoredChunk[]) => {
        await started();
        const records = chunks.map((chunk, i): RunLogChunkRecord => ({ runId, seq: seq + i, ...chunk }));
        await this.deps.chunks.append(records);
        seq += records.length;
        this.publish(runId, { chunks: records });
      },
      // A run taken up that stored nothing more still ends at its first runner's count.
      end: () => this.track(started().then(() => this.publish(runId, { chunks: [], end: seq }), (error: unknown) => this.deps.log(`run ${runId}: counting its stored chunks failed: ${(error as Error).message}`))),
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

  /**
   * Deletes the session's runs' chunks, then this runner's files of them, then tells the other runners to drop
   * their copies. A runner down at that moment keeps its copies of ended runs until its data dir is cleared. A
   * run this runner still writes (draining: its container was just destroyed) keeps its files until its log
   * ends, then is removed again, with the batches it stored meanwhile.
   */
  async removeSession(sessionId: string): Promise<void> {
    const { runIds } = await this.deps.chunks.deleteForSession(sessionId);
    if (runIds.length === 0) return;
    for (const runId of runIds) if (this.writes(runId)) this.removedWhileWriting.set(runId, sessionId);
    await this.dropCopies(runIds);
    await this.deps.bus.publish(REMOVED_CHANNEL, JSON.stringify({ runIds }));
  }

  async removeRuns(runIds: string[]): Promise<void> {
    const ended = runIds.filter((runId) => !this.writes(runId));
    if (ended.length === 0) return;
    const chunks = await this.deps.chunks.deleteForRuns(ended);
    await this.dropCopies(ended);
    // The first runner to sweep them tells the others; a runner that was down drops its copies in its own sweep.
    if (chunks > 0) await this.deps.bus.publish(REMOVED_CHANNEL, JSON.stringify({ runIds: ended }));
  }

  async close(): Promise<void> {
    this.closing = true;
    await this.removals.then((unsubscribe) => unsubscribe(), () => undefined);
    const copies = [...this.copies.values()];
    await Promise.all(copies.map(async (c) => {
      await c.mirror.stop();
      await c.closed;
    }));
    // The runner's database closes after this: what the runs' ends started must be done by then (a removal
    // started later failed with "Cannot use a pool after calling end on the pool" and left its rows). Bounded: a
    // database or Redis that stopped answering must not hold the runner's shutdown.
    const drained = (async () => {
      while (this.ending.size > 0) await Promise.all([...this.ending]);
    })();
    let timer: NodeJS.Timeout | undefined;
    const gaveUp = new Promise<void>((resolve) => (timer = setTimeout(resolve, CLOSE_WAIT_MS)));
    await Promise.race([drained, gaveUp]);
    clearTimeout(timer);
  }

  /** Stops following the runs and removes their files here: their logs were deleted with their session. */
  private async dropCopies(runIds: string[]): Promise<void> {
    for (const runId of runIds) {
      // This runner's own run, still draining (its own logs:removed heard back too): removed once its log ends.
      if (this.writes(runId)) continue;
      this.whole.delete(runId);
      const copying = this.copies.get(runId);
      if (copying) {
        copying.failed = true;
        await copying.mirror.stop();
        await copying.closed;
      }
      await fs.promises.rm(RunLogs.dirFor(this.deps.dataDir, runId), { recursive: true, force: true }).catch((error: unknown) => this.deps.log(`run ${runId}: removing its log files failed: ${(error as Error).message}`));
    }
  }

  /** Whether this runner writes the run's log now (its own run, not a copy of another runner's). */
  private writes(runId: string): boolean {
    return RunLogs.writing(this.deps.dataDir, runId) && !this.copies.has(runId);
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

  /**
   * Publishes a batch only when some runner subscribes to `log:<runId>` (PUBSUB NUMSUB, its answer kept briefly):
   * a run nobody follows costs Redis nothing. A follower that subscribes between two answers misses the batches
   * in between: its first message shows a gap in `seq`, and its poll a lost end; both read the database.
   */
  private publish(runId: string, message: Parameters<typeof encodeLogChunkMessage>[0]): void {
    const channel = logChannel(runId);
    let run = this.publishing.get(runId);
    if (!run) this.publishing.set(runId, (run = { until: 0, followed: Promise.resolve(false), chain: Promise.resolve() }));
    const now = Date.now();
    if (now >= run.until) {
      run.until = now + (this.deps.followersTtlMs ?? FOLLOWERS_TTL_MS);
      // Not knowing, publish: a message nobody hears costs less than a follower left to its poll.
      run.followed = this.deps.bus.subscribers(channel).then((n) => n > 0, () => true);
    }
    if (message.end !== undefined) {
      this.publishing.delete(runId);
      const removed = this.removedWhileWriting.get(runId);
      this.removedWhileWriting.delete(runId);
      // Its last batches were stored after its session's logs were deleted: they go too.
      if (removed !== undefined) this.track(this.removeSession(removed).catch((error: unknown) => this.deps.log(`run ${runId}: removing its log failed: ${(error as Error).message}`)));
    }
    const followed = run.followed;
    run.chain = run.chain
      .then(async () => {
        if (await followed) await this.deps.bus.publish(channel, encodeLogChunkMessage(message));
      })
      // Followers that miss it read the database (a gap in the sequence, or their poll).
      .catch((error: unknown) => this.deps.log(`run ${runId}: publishing its log failed: ${(error as Error).message}`));
  }
}

function processIdOf(run: StoredRun): string | null {
  const details = run.details as Record<string, unknown> | null | undefined;
  return typeof details?.processId === "string" ? details.processId : null;
}
