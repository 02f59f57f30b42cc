import type { Socket } from "socket.io";
import { LogReader, type LogStream } from "../runs/run-logs";
import { utf8Boundary, type OutputEncoding } from "@berth/protocol";

/**
 * Packets a caught-up client may have queued before it counts as behind. They are the room's broadcasts, one
 * string and one WebSocket frame shared by every follower, so a deep queue costs the runner one copy for all of
 * them (64 chunks of up to 64 KiB): a burst of chunks announced by one disk write sends no one to disk.
 */
export const MAX_LIVE_QUEUED_PACKETS = 64;
/** A catch-up's packets are the client's own: it reads on while less than this is queued for it. */
const CATCH_UP_QUEUED_BYTES = 128 * 1024;
/** One read (and one event) of a catch-up: twice an agent chunk, through a handle kept open. */
const CATCH_UP_READ = 128 * 1024;
/** Read into and turned into an event's own string or bytes at once, so one buffer serves every follower. */
const scratch = Buffer.allocUnsafe(CATCH_UP_READ);

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
  dataDir: string;
  runId: string;
  stream: LogStream;
  /** The room of this log's caught-up followers in this follower's encoding (LogFanOut sends each chunk to it once). */
  room: string;
  encoding: OutputEncoding;
}

/**
 * One client following one log. Caught up, it is in the log's room and gets the live chunks LogFanOut
 * broadcasts; behind (its queue grew, or it starts from an old offset), it is out of the room and reads the
 * log from disk through one kept-open handle as its connection drains, then rejoins the room in the same
 * synchronous step that finds the end, so no chunk falls between. The file is the source of truth: offsets
 * stay exact, and the runner's memory stays bounded however slow a client is.
 */
export class LogFollower {
  /** In the room: each live chunk is counted into `sent` by LogFanOut as it is broadcast. */
  live = false;
  private stopped = false;
  private catchingUp = false;
  private reader: LogReader | null = null;
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
    return offset === this.sent && queueOf(this.socket).length <= MAX_LIVE_QUEUED_PACKETS;
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
    this.reader?.close();
    this.reader = null;
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

  private catchUpNow(): void {
    while (queuedBytes(this.socket) < CATCH_UP_QUEUED_BYTES) {
      this.reader ??= LogReader.open(this.log.dataDir, this.log.runId, this.log.stream);
      const read = this.reader.read(this.sent, scratch);
      if (read === 0) {
        this.reader.close();
        this.reader = null;
        // The end of what is on disk, and every chunk is on disk before it is broadcast: the next one is ours.
        this.live = true;
        void this.socket.join(this.log.room);
        return;
      }
      // Cut at a UTF-8 boundary so a character is never split across two events.
      const end = utf8Boundary(scratch.subarray(0, read)) || read;
      const offset = this.sent;
      this.sent += end;
      // Copied out of the scratch buffer: a binary event's bytes wait in the socket's queue until they are sent.
      this.emit(offset, this.log.encoding === "binary" ? Buffer.from(scratch.subarray(0, end)) : scratch.toString("utf8", 0, end));
    }
  }
}
