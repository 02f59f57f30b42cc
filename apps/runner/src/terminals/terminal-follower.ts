import { readLog } from "../runs/run-logs";

/** Bytes a client may have unacknowledged before it counts as behind. */
export const TERMINAL_WINDOW_BYTES = 512 * 1024;
const CATCH_UP_CHUNK = 64 * 1024;

export type TerminalEmit = (offset: number, data: Buffer, onAck: () => void) => void;

/**
 * One client following one terminal from a byte offset. The transcript on disk (the run's stdout log,
 * written before anything is pushed) is the source of truth: live chunks go straight through while the
 * client keeps acknowledging them; once it has a window's worth unacknowledged it is "behind", live
 * chunks skip it, and it catches up from the file as its acks arrive. So a slow client costs the runner
 * at most a window of memory and still gets every byte once, in order.
 */
export class TerminalFollower {
  private acked: number;
  private live = false;
  private stopped = false;
  private exitCode: number | null | undefined = undefined;
  private exitSent = false;
  /** Waiting for logged bytes to reach the file (and the offset it waited at: once per offset). */
  private awaitingDisk = false;
  private waitedAt = -1;

  constructor(
    /** `logged`: bytes the pump has taken; `written`: settles once all of them are on disk (stored behind the push). */
    private readonly source: { dataDir: string; runId: string; logged: () => number; written: () => Promise<void> },
    public sent: number,
    private readonly emit: TerminalEmit,
    private readonly onExit: (exitCode: number | null) => void,
    /** Told when this follower can take more (the pump may read again). */
    private readonly onRoom: () => void,
  ) {
    this.acked = sent;
  }

  /** Replays what the client missed from its offset, as far as the window allows. */
  start(): void {
    this.catchUp();
  }

  /** Whether the pump should read more for this follower. */
  hasRoom(): boolean {
    return !this.stopped && this.live && this.sent - this.acked < TERMINAL_WINDOW_BYTES;
  }

  /** A chunk just appended to the transcript at `offset`. */
  push(offset: number, data: Buffer): void {
    if (this.stopped || !this.live) return;
    if (offset === this.sent && this.hasRoom()) return this.send(offset, data);
    // Behind: an ack resumes it from the file; with nothing awaiting an ack, resume now.
    this.live = false;
    if (this.sent === this.acked) this.catchUp();
  }

  /** The terminal ended: the client hears of it once it has every byte. */
  end(exitCode: number | null): void {
    this.exitCode = exitCode;
    this.maybeSendExit();
  }

  stop(): void {
    this.stopped = true;
  }

  private send(offset: number, data: Buffer): void {
    this.sent = offset + data.length;
    const through = this.sent;
    this.emit(offset, data, () => {
      if (through <= this.acked) return;
      this.acked = through;
      if (!this.live) this.catchUp();
      if (this.hasRoom()) this.onRoom();
    });
  }

  private catchUp(): void {
    if (this.awaitingDisk) return;
    while (!this.stopped && this.sent - this.acked < TERMINAL_WINDOW_BYTES) {
      const { content } = readLog(this.source.dataDir, this.source.runId, "stdout", this.sent, CATCH_UP_CHUNK);
      if (content.length === 0) {
        // Taken but not on disk yet: going live now would leave this client short of those bytes until the
        // terminal prints again (the relayed keystroke-echo stall). Read again once they are stored; a second
        // empty read at the same offset (bytes a secret mask still holds back) goes live as before.
        if (this.sent < this.source.logged() && this.waitedAt !== this.sent) return this.awaitDisk();
        this.live = true;
        this.maybeSendExit();
        this.onRoom();
        return;
      }
      this.send(this.sent, content);
    }
  }

  private awaitDisk(): void {
    this.awaitingDisk = true;
    this.waitedAt = this.sent;
    const resume = () => {
      this.awaitingDisk = false;
      this.catchUp();
    };
    this.source.written().then(resume, resume);
  }

  private maybeSendExit(): void {
    if (this.exitCode === undefined || this.exitSent || this.stopped) return;
    if (this.sent < this.source.logged()) return this.catchUp();
    this.exitSent = true;
    this.onExit(this.exitCode);
  }
}
