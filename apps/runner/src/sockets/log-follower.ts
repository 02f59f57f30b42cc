import type { Socket } from "socket.io";
import { readLog, type LogStream } from "../runs/run-logs";
import { utf8Boundary } from "../runs/utf8-boundary";

/** Packets a client may have queued before it counts as behind (each ≤ one agent chunk, ~64 KiB). */
const MAX_QUEUED_PACKETS = 8;
const CATCH_UP_CHUNK = 64 * 1024;

/** engine.io's per-connection queue of packets not yet written to the transport. */
function queuedPackets(socket: Socket): number {
  return (socket.conn as unknown as { writeBuffer?: unknown[] }).writeBuffer?.length ?? 0;
}

/**
 * Follows one log for one client with backpressure. While the client keeps up, live chunks go straight
 * through; when its queue grows, live chunks are dropped for it and it catches up from the log file on
 * disk as its connection drains. The runner's memory stays bounded however slow a client is, and the
 * client still gets every byte in order: the file is the source of truth and offsets are exact.
 */
export class LogFollower {
  private live = false;
  private stopped = false;
  private readonly onDrain = () => this.catchUp();

  constructor(
    private readonly socket: Socket,
    private readonly source: { dataDir: string; runId: string; stream: LogStream },
    public sent: number,
    private readonly emit: (offset: number, data: string) => void,
  ) {
    socket.conn.on("drain", this.onDrain);
  }

  /** Replays from the client's offset; becomes live once it reaches the end (synchronously: no gap). */
  start(): number {
    this.catchUp();
    return this.sent;
  }

  /** A chunk just appended to the log (already on disk); `bytes` is its length in the file. */
  push(offset: number, data: string, bytes: number): void {
    if (this.stopped || !this.live) return;
    if (offset !== this.sent || queuedPackets(this.socket) > MAX_QUEUED_PACKETS) {
      this.live = false;
      return;
    }
    this.sent += bytes;
    this.emit(offset, data);
  }

  stop(): void {
    this.stopped = true;
    this.socket.conn.off("drain", this.onDrain);
  }

  private catchingUp = false;

  private catchUp(): void {
    // emit() can flush and fire "drain" synchronously: never re-enter.
    if (this.stopped || this.live || this.catchingUp) return;
    this.catchingUp = true;
    try {
      this.catchUpNow();
    } finally {
      this.catchingUp = false;
    }
  }

  private catchUpNow(): void {
    while (queuedPackets(this.socket) <= MAX_QUEUED_PACKETS) {
      const { content } = readLog(this.source.dataDir, this.source.runId, this.source.stream, this.sent, CATCH_UP_CHUNK);
      if (content.length === 0) {
        this.live = true;
        return;
      }
      // Cut at a UTF-8 boundary so a character is never split across two events.
      const end = utf8Boundary(content) || content.length;
      const piece = content.subarray(0, end);
      const offset = this.sent;
      this.sent += piece.length;
      this.emit(offset, piece.toString("utf8"));
    }
  }
}
