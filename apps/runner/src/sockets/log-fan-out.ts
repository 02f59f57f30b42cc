import type { BroadcastOperator, Server, Socket } from "socket.io";
import type { OutputEncoding, ServerToClientEvents } from "@berth/protocol";
import type { LogStream } from "../runs/run-logs";
import { LogBlocks } from "./log-blocks";
import { LogFollower, type OutputPayload } from "./log-follower";

/**
 * Live chunks pushed in one turn of the event loop leave as one event, up to this many bytes: when the runner is
 * busy it reads the agent's chunks in batches, and fewer, larger frames cost every client less per byte.
 */
const COALESCED_BYTES = 512 * 1024;

interface Chunk {
  data: string;
  bytes: number;
  raw?: Uint8Array;
}

/** Where an output event goes: one socket (a catch-up) or the room of caught-up followers (a live chunk). */
export type OutputTarget = Pick<BroadcastOperator<ServerToClientEvents, unknown>, "emit">;

/**
 * The live chunk's bytes as they are in the log, from its text: only when decoding replaced nothing (no U+FFFD),
 * so encoding the text gives back exactly the bytes read. Otherwise null, and binary followers read the file.
 */
function exactBytes(data: string, bytes: number): Buffer | null {
  if (data.includes("\uFFFD")) return null;
  const chunk = Buffer.from(data, "utf8");
  return chunk.length === bytes ? chunk : null;
}

/**
 * The followers of one log. A live chunk is encoded once per encoding and broadcast to the room of followers
 * that are caught up in it (socket.io's adapter encodes a broadcast once and shares it among its sockets; a
 * binary chunk is one Buffer every socket's frame points at, with no JSON string and no UTF-8 encode per
 * socket); one whose queue has grown, or that is not at the chunk's offset, leaves the room first and catches
 * up from disk (LogFollower), in blocks read once for all the followers behind (LogBlocks). Never `volatile`: a dropped packet would be a gap no one knows of.
 */
export class LogFanOut {
  private readonly followers = new Set<LogFollower>();
  private readonly rooms: Record<OutputEncoding, string>;
  private readonly blocks: LogBlocks;
  /** Contiguous live chunks not yet sent, from `offset`. */
  private pending: { offset: number; bytes: number; chunks: Chunk[] } | null = null;
  private flushDue = false;

  constructor(
    private readonly io: Server,
    key: string,
    source: { dataDir: string; runId: string; stream: LogStream },
    private readonly send: (to: OutputTarget, offset: number, data: OutputPayload) => void,
  ) {
    this.rooms = { text: `log:${key}`, binary: `log:${key}:binary` };
    this.blocks = new LogBlocks(source);
  }

  get size(): number {
    return this.followers.size;
  }

  /** Starts following from `offset`: replay from disk, then live. Returns the follower and the offset replayed to. */
  follow(socket: Socket, offset: number, encoding: OutputEncoding = "text"): { follower: LogFollower; sent: number } {
    const log = { blocks: this.blocks, room: this.rooms[encoding], encoding };
    const follower = new LogFollower(socket, log, offset, (at, data) => this.send(socket, at, data));
    this.followers.add(follower);
    return { follower, sent: follower.start() };
  }

  unfollow(follower: LogFollower): void {
    follower.stop();
    this.followers.delete(follower);
    if (this.followers.size === 0) this.blocks.close();
  }

  /**
   * A chunk just appended to the log (already on disk): `data` is its whole characters, `bytes` their length in
   * the file. `raw`, when the caller has them, are those bytes as written; without them, binary followers get
   * the text encoded again when that is exact, and read the file when it is not (bytes that were not UTF-8).
   * Chunks pushed in one turn are sent together after it (`raw` is kept until then: not to be reused).
   */
  push(offset: number, data: string, bytes: number, raw?: Uint8Array): void {
    if (this.pending && this.pending.offset + this.pending.bytes !== offset) this.flush();
    this.pending ??= { offset, bytes: 0, chunks: [] };
    this.pending.chunks.push({ data, bytes, ...(raw ? { raw } : {}) });
    this.pending.bytes += bytes;
    if (this.pending.bytes >= COALESCED_BYTES) return this.flush();
    if (this.flushDue) return;
    this.flushDue = true;
    setImmediate(() => {
      this.flushDue = false;
      this.flush();
    });
  }

  /** The pending chunks as one event to each room; a follower that is not at their offset falls behind. */
  private flush(): void {
    const batch = this.pending;
    if (!batch) return;
    this.pending = null;
    const { offset, bytes, chunks } = batch;
    const live = new Set<OutputEncoding>();
    for (const follower of this.followers) {
      if (!follower.live) continue;
      if (follower.keepsUp(offset)) live.add(follower.encoding);
      else follower.fallBehind();
    }
    if (live.has("binary")) {
      const parts = chunks.map(({ data, bytes, raw }) => (raw ? Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength) : exactBytes(data, bytes)));
      const chunk = parts.includes(null) ? null : parts.length === 1 ? parts[0]! : Buffer.concat(parts as Buffer[], bytes);
      if (chunk) this.send(this.io.local.to(this.rooms.binary), offset, chunk);
      else for (const follower of this.followers) if (follower.live && follower.encoding === "binary") follower.fallBehind();
    }
    // Local: the runner that writes a log is the one whose followers read it (their offsets are its files').
    if (live.has("text")) this.send(this.io.local.to(this.rooms.text), offset, chunks.length === 1 ? chunks[0]!.data : chunks.map((c) => c.data).join(""));
    for (const follower of this.followers) if (follower.live) follower.sent += bytes;
  }
}
