import type { Socket } from "socket.io";
import { utf8Boundary, type OutputEncoding } from "@berth/protocol";
import type { Block, LogBlocks } from "./log-blocks";

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

/** The parts of engine.io's connection this follows to see a view written out (LogFollower's `lent`). */
interface Connection {
  transport?: { name: string; on(event: "drain", listener: () => void): void; off(event: "drain", listener: () => void): void };
  on(event: "flush" | "upgrade", listener: () => void): void;
  off(event: "flush" | "upgrade", listener: () => void): void;
}

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
  /**
   * Blocks this follower lent views of (one entry a view): `queued`, in engine.io's queue; `handed`, handed to the
   * WebSocket transport in its last flush. A WebSocket send is written out before the transport says "drain" and
   * before the next flush, so at its drain every handed view is in the kernel's buffer and its block is given back.
   */
  private readonly lent = { queued: [] as Block[], handed: [] as Block[] };
  /** The WebSocket transport whose drains give views back; views handed to another transport are untracked. */
  private transport: NonNullable<Connection["transport"]> | null = null;
  private readonly onFlush = () => {
    this.lent.handed.push(...this.lent.queued);
    this.lent.queued.length = 0;
  };
  private readonly onWritten = () => {
    for (const block of this.lent.handed) this.log.blocks.giveBack(block);
    this.lent.handed.length = 0;
  };
  private readonly onUpgrade = () => this.watchTransport();

  constructor(
    readonly socket: Socket,
    private readonly log: FollowedLog,
    public sent: number,
    private readonly emit: (offset: number, data: OutputPayload) => void,
  ) {
    socket.conn.on("drain", this.onDrain);
    const conn = socket.conn as unknown as Connection;
    conn.on("flush", this.onFlush);
    conn.on("upgrade", this.onUpgrade);
    this.watchTransport();
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
    const conn = this.socket.conn as unknown as Connection;
    conn.off("flush", this.onFlush);
    conn.off("upgrade", this.onUpgrade);
    this.transport?.off("drain", this.onWritten);
    // Views still queued or in flight may yet be written (a re-subscribe keeps the connection): left to the GC.
    this.untrackLent();
    void this.socket.leave(this.log.room);
  }

  /** Gives lent views back on the connection's WebSocket transport's drains; on another transport, none is lent. */
  private watchTransport(): void {
    this.transport?.off("drain", this.onWritten);
    // A transport upgraded from may never say its last sends were written: what it had is left to the GC.
    this.untrackLent();
    const transport = (this.socket.conn as unknown as Connection).transport;
    this.transport = transport?.name === "websocket" ? transport : null;
    this.transport?.on("drain", this.onWritten);
  }

  private untrackLent(): void {
    for (const block of [...this.lent.handed, ...this.lent.queued]) this.log.blocks.untrack(block);
    this.lent.handed.length = 0;
    this.lent.queued.length = 0;
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

  /**
   * The next event's bytes from `sent`, cut at a UTF-8 boundary so a character is never split across two events;
   * `view` when they are a view of a block (to be lent if kept), not a copy.
   */
  private nextBytes(): { bytes: Buffer; view: boolean } {
    const bytes = this.log.blocks.at(this.sent);
    const end = utf8Boundary(bytes);
    if (end > 0 || bytes.length === 0) return { bytes: bytes.subarray(0, end), view: true };
    // Only part of a character before the block's end: joined with the rest of it from the next block.
    const rest = this.log.blocks.at(this.sent + bytes.length).subarray(0, 3);
    const joined = Buffer.concat([bytes, rest]);
    return { bytes: joined.subarray(0, utf8Boundary(joined) || joined.length), view: false };
  }

  private catchUpNow(): void {
    while (queuedBytes(this.socket) < CATCH_UP_QUEUED_BYTES) {
      const { bytes, view } = this.nextBytes();
      if (bytes.length === 0) {
        // The end of what is on disk, and every chunk is on disk before it is broadcast: the next one is ours.
        this.live = true;
        void this.socket.join(this.log.room);
        return;
      }
      const offset = this.sent;
      this.sent += bytes.length;
      if (this.log.encoding === "text") {
        this.emit(offset, bytes.toString("utf8"));
        continue;
      }
      // A binary event is a view of the shared block: lent while it waits in the socket's queue and in flight, so
      // the block's memory is not reused under it. Lent before the emit, which may flush at once.
      if (view) {
        const block = this.log.blocks.lend(offset);
        if (this.transport) this.lent.queued.push(block);
        else this.log.blocks.untrack(block);
      }
      this.emit(offset, bytes);
    }
  }
}
