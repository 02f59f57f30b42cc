import type { RunLogChunkRecord } from "@berth/db";
import type { ClusterBus } from "./cluster-bus";
import { decodeLogChunkMessage, logChannel, type LogChunkMessage } from "./log-chunk-message";

/** Chunks read from the database at once (stored chunks are at most 1 MiB, most 64 KiB or less). */
const PAGE_CHUNKS = 64;
/** Live messages held while the database is read; past this they are dropped and read from the database instead. */
const MAX_HELD_BYTES = 16 * 1024 * 1024;
/** Polls with nothing new after the run's row says it ended before the copy stops short of the row's sizes. */
const QUIET_POLLS = 3;

/** The run's row as a mirror needs it: whether it may still grow, and its final sizes once it ended. */
export interface MirroredRunState {
  running: boolean;
  stdoutBytes: number;
  stderrBytes: number;
}

export interface RemoteLogMirrorDeps {
  bus: ClusterBus;
  /** Stored chunks of the run from `fromSeq` on, in order, at most `limit`. */
  list(runId: string, fromSeq: number, limit: number): Promise<RunLogChunkRecord[]>;
  /** The run's row now; null when it is gone. */
  state(runId: string): Promise<MirroredRunState | null>;
  /** Takes the next chunk, in order, each once (the local copy appends it and tells its followers). */
  apply(chunk: RunLogChunkRecord): void;
  /** How often the database is read again while the run goes on: lost live messages and the run's end. */
  pollMs: number;
  onError(error: unknown): void;
}

/**
 * Follows a run another runner is writing, so this runner serves it like one of its own: subscribe to
 * `log:<runId>` first (messages held), then copy what the database has to its end, then apply the held and the
 * live messages, skipping chunks already applied by sequence number. A chunk is published only after it is
 * stored, so everything is either in the database read or in a message heard after it: no gap, no duplicate. A
 * message lost on the way (pub/sub is at most once) shows as a gap in the sequence and is read from the
 * database; the poll catches a lost last message and a writer that died. Ends when the run's log does.
 */
export class RemoteLogMirror {
  private next = 0;
  private readonly sizes = { stdout: 0, stderr: 0 };
  private held: LogChunkMessage[] | null = [];
  private heldBytes = 0;
  private endAt: number | null = null;
  private quietPolls = 0;
  private finished = false;
  private chain: Promise<void> = Promise.resolve();
  private unsubscribe: (() => Promise<void>) | null = null;
  private timer: NodeJS.Timeout | null = null;
  private resolveEnded!: () => void;
  /** Settles once the log is whole here (or the mirror was stopped). */
  readonly ended = new Promise<void>((resolve) => (this.resolveEnded = resolve));

  constructor(
    readonly runId: string,
    private readonly deps: RemoteLogMirrorDeps,
  ) {}

  /** Chunks applied so far: the next sequence number. */
  get applied(): number {
    return this.next;
  }

  /** Settles once subscribed and caught up with the database. */
  async start(): Promise<void> {
    const unsubscribe = await this.deps.bus.subscribe(logChannel(this.runId), (bytes) => this.hear(bytes));
    // Stopped while subscribing: nothing to follow.
    if (this.finished) return unsubscribe();
    this.unsubscribe = unsubscribe;
    await this.serially(async () => {
      await this.copyStored();
      const held = this.held ?? [];
      this.held = null;
      for (const message of held) await this.take(message);
    });
    if (this.finished) return;
    this.timer = setInterval(() => void this.serially(() => this.poll()).catch((error: unknown) => this.deps.onError(error)), this.deps.pollMs);
    this.timer.unref();
  }

  /** Reads the database and the run's row now, as a poll does (a run that ended: stops once whole). */
  checkNow(): Promise<void> {
    return this.serially(() => this.poll());
  }

  /** Copies what the database has and stops: the writer is gone (failover), the copy is as whole as it gets. */
  catchUpAndStop(): Promise<void> {
    return this.serially(async () => {
      await this.copyStored();
      await this.finish();
    });
  }

  /** Stops following (the runner shuts down); what was applied stays applied. */
  stop(): Promise<void> {
    return this.finish();
  }

  private hear(bytes: Buffer): void {
    const message = decodeLogChunkMessage(this.runId, bytes);
    if (!message || this.finished) return;
    if (this.held) {
      this.heldBytes += bytes.length;
      // The database read is slow to come: drop what is held, a gap in the sequence sends the copy back to it.
      if (this.heldBytes > MAX_HELD_BYTES) this.held = message.end === undefined ? [] : [{ chunks: [], end: message.end }];
      else this.held.push(message);
      return;
    }
    void this.serially(() => this.take(message)).catch((error: unknown) => this.deps.onError(error));
  }

  private async take(message: LogChunkMessage): Promise<void> {
    if (this.finished) return;
    if (message.end !== undefined) this.endAt = message.end;
    for (const chunk of message.chunks) {
      if (chunk.seq < this.next) continue;
      // A message was lost (or dropped while held): the database has every chunk before this one.
      if (chunk.seq > this.next) await this.copyStored();
      if (chunk.seq === this.next) this.applyOne(chunk);
    }
    if (this.endAt !== null && this.next < this.endAt) await this.copyStored();
    if (this.endAt !== null && this.next >= this.endAt) await this.finish();
  }

  private async poll(): Promise<void> {
    if (this.finished) return;
    const before = this.next;
    await this.copyStored();
    const state = await this.deps.state(this.runId);
    if (state?.running) {
      this.quietPolls = 0;
      return;
    }
    // The row can say "finished" a moment before the last batch is stored: whole, or quiet for a few polls.
    const whole = !state || (this.sizes.stdout >= state.stdoutBytes && this.sizes.stderr >= state.stderrBytes);
    this.quietPolls = this.next === before ? this.quietPolls + 1 : 0;
    if (whole || this.quietPolls >= QUIET_POLLS) await this.finish();
  }

  private async copyStored(): Promise<void> {
    for (;;) {
      const page = await this.deps.list(this.runId, this.next, PAGE_CHUNKS);
      for (const chunk of page) if (chunk.seq === this.next) this.applyOne(chunk);
      if (page.length < PAGE_CHUNKS || this.finished) return;
    }
  }

  private applyOne(chunk: RunLogChunkRecord): void {
    this.deps.apply(chunk);
    this.sizes[chunk.stream] = chunk.offset + chunk.data.length;
    this.next += 1;
  }

  private async finish(): Promise<void> {
    if (this.finished) return;
    this.finished = true;
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    const unsubscribe = this.unsubscribe;
    this.unsubscribe = null;
    this.resolveEnded();
    await unsubscribe?.().catch((error: unknown) => this.deps.onError(error));
  }

  /** One step at a time, in order: applying is never interleaved. */
  private serially(step: () => Promise<void>): Promise<void> {
    const run = this.chain.then(step);
    this.chain = run.catch(() => undefined);
    return run;
  }
}
