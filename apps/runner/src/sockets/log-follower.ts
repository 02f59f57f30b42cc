import type { Socket } from "socket.io";
import { utf8Boundary, type OutputEncoding } from "@berth/protocol";
import type { LogBlocks } from "./log-blocks";

/**
 * Bytes a caught-up client may have queued before it counts as behind. They are the room's broadcasts, one
 * Buffer shared by every follower, so the queue costs the runner one copy for all of them; counted in bytes
 * because a broadcast is a turn's chunks coalesced (up to 512 KiB), and the runner's memory follows the bytes.
 */
export const MAX_LIVE_QUEUED_BYTES = 2 * 1024 * 1024;
/** A catch-up sends on while less than this is queued for its client (views of shared blocks: no copy each). */
const CATCH_UP_QUEUED_BYTES = 128 * 1024;

/** An output event's `data` as the runner sends it: text, or the log's bytes for a follower that asked for `binary`. */
export type OutputPayload = string | Buffer;

/** engine.io's per-connection queue of packets not yet handed to the transport. */
function queueOf(socket: Socket): { data?: string | Buffer }[] {
  return (socket.conn as unknown as { writeBuffer?: { data?: string | Buffer }[] }).writeBuffer ?? [];
}

function queuedBytes(socket: Socket): number {
  let bytes = 0;
  for (const packet of queueOf(socket)) bytes += packet.data?.length ?? 0;
  return bytes;
}

export interface FollowedLog {
  /** The log's bytes, read once in blocks for every follower catching up in it (LogFanOut's). */
  blocks: LogBlocks;
  /** The room of this log's caught-up followers in this follower's encoding (LogFanOut sends each chunk to it once). */
  room: string;
  encoding: OutputEncoding;
}

/**
 * One client following one log. Caught up, it is in the log's room and gets the live chunks LogFanOut
 * broadcasts; behind (its queue grew, or it starts from an old offset), it is out of the room and is sent the
 * log from disk in large blocks shared with the other followers (LogBlocks) as its connection drains, then rejoins the room in the same
 * synchronous step that finds the end, so no chunk falls between. The file is the source of truth: offsets
 * stay exact, and the runner's memory stays bounded however slow a client is.
 */
export class LogFollower {
  /** In the room: each live chunk is counted into `sent` by LogFanOut as it is broadcast. */
  live = false;
  private stopped = false;
  private catchingUp = false;
  private readonly onDrain = () => this.catchUp();

  constructor(
    readonly socket: Socket,
    private readonly log: FollowedLog,
    public sent: number,
    private readonly emit: (offset: number, data: OutputPayload) => void,
  ) {
    socket.conn.on("drain", this.onDrain);
  }

  get encoding(): OutputEncoding {
    return this.log.encoding;
  }

  /** Replays from the client's offset; joins the room once it reaches the end. The offset it got to. */
  start(): number {
    this.catchUp();
    return this.sent;
  }

  /** Whether the next live chunk, at `offset`, can go to this follower through the room. */
  keepsUp(offset: number): boolean {
    return offset === this.sent && queuedBytes(this.socket) <= MAX_LIVE_QUEUED_BYTES;
  }

  /** Out of the room; it catches up from disk when its connection drains (or at once if nothing is queued). */
  fallBehind(): void {
    this.live = false;
    void this.socket.leave(this.log.room);
    // Not now: the chunk that made it fall behind is on disk already and about to be broadcast.
    setImmediate(() => this.catchUp());
  }

  stop(): void {
    this.stopped = true;
    this.live = false;
    this.socket.conn.off("drain", this.onDrain);
    void this.socket.leave(this.log.room);
  }

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

  /** The next event's bytes from `sent`, cut at a UTF-8 boundary so a character is never split across two events. */
  private nextBytes(): Buffer {
    const bytes = this.log.blocks.at(this.sent);
    const end = utf8Boundary(bytes);
    if (end > 0 || bytes.length === 0) return bytes.subarray(0, end);
    // Only part of a character before the block's end: joined with the rest of it from the next block.
    const rest = this.log.blocks.at(this.sent + bytes.length).subarray(0, 3);
    const joined = Buffer.concat([bytes, rest]);
    return joined.subarray(0, utf8Boundary(joined) || joined.length);
  }

  private catchUpNow(): void {
    while (queuedBytes(this.socket) < CATCH_UP_QUEUED_BYTES) {
      const bytes = this.nextBytes();
      if (bytes.length === 0) {
        // The end of what is on disk, and every chunk is on disk before it is broadcast: the next one is ours.
        this.live = true;
        void this.socket.join(this.log.room);
        return;
      }
      const offset = this.sent;
      this.sent += bytes.length;
      // A binary event is a view of the shared block: it stays valid while it waits in the socket's queue.
      this.emit(offset, this.log.encoding === "binary" ? bytes : bytes.toString("utf8"));
    }
  }
}
