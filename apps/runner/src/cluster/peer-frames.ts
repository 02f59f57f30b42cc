/**
 * The frames of a peer channel (peer-channel.ts): many HTTP exchanges at once over one connection between two
 * runners, each exchange a stream of its own. A frame is a 9-byte head — the stream's id (u32), its kind (u8)
 * and the payload's length (u32), big-endian — then the payload.
 */
export const FrameKind = {
  /** Bytes of the stream: the request's HTTP/1.1 bytes one way, the response's the other. */
  data: 1,
  /** The sender has written all of the stream (the response is complete). */
  end: 2,
  /** The stream is abandoned (the client hung up, the owner failed it): the other side drops it. */
  reset: 3,
} as const;
export type FrameKind = (typeof FrameKind)[keyof typeof FrameKind];

const HEAD_BYTES = 9;
/** A larger write is split: one frame never holds the channel for long, and a reader never buffers more. */
export const MAX_PAYLOAD = 1024 * 1024;

export interface Frame {
  stream: number;
  kind: FrameKind;
  payload: Buffer;
}

/** Up to this size a frame's head and payload are copied into one buffer: one write instead of two. */
const COPY_MAX = 16 * 1024;

/** The frames for `payload` (split into MAX_PAYLOAD pieces; one empty frame for an empty payload). */
export function encodeFrames(stream: number, kind: FrameKind, payload: Buffer = Buffer.alloc(0)): Buffer[] {
  const frames: Buffer[] = [];
  let offset = 0;
  do {
    const piece = payload.subarray(offset, offset + MAX_PAYLOAD);
    const copied = piece.length <= COPY_MAX;
    const head = Buffer.allocUnsafe(HEAD_BYTES + (copied ? piece.length : 0));
    head.writeUInt32BE(stream, 0);
    head.writeUInt8(kind, 4);
    head.writeUInt32BE(piece.length, 5);
    if (copied) piece.copy(head, HEAD_BYTES);
    frames.push(...(copied ? [head] : [head, piece]));
    offset += piece.length;
  } while (offset < payload.length);
  return frames;
}

/** Reads frames out of a connection's chunks as they come; throws on a frame no sender of ours would write. */
export class FrameReader {
  private pending: Buffer[] = [];
  private buffered = 0;

  /** The complete frames `chunk` ends; a partial one waits for the next chunk. */
  push(chunk: Buffer): Frame[] {
    this.pending.push(chunk);
    this.buffered += chunk.length;
    const frames: Frame[] = [];
    while (this.buffered >= HEAD_BYTES) {
      const head = this.peek(HEAD_BYTES);
      const kind = head.readUInt8(4);
      const length = head.readUInt32BE(5);
      if (kind !== FrameKind.data && kind !== FrameKind.end && kind !== FrameKind.reset) throw new Error(`peer channel: a frame of unknown kind ${kind}`);
      if (length > MAX_PAYLOAD) throw new Error(`peer channel: a frame of ${length} bytes (at most ${MAX_PAYLOAD})`);
      if (this.buffered < HEAD_BYTES + length) break;
      const whole = this.take(HEAD_BYTES + length);
      frames.push({ stream: whole.readUInt32BE(0), kind: kind as FrameKind, payload: whole.subarray(HEAD_BYTES) });
    }
    return frames;
  }

  private peek(bytes: number): Buffer {
    if (this.pending[0]!.length < bytes) this.pending = [Buffer.concat(this.pending)];
    return this.pending[0]!;
  }

  private take(bytes: number): Buffer {
    const first = this.peek(bytes);
    const taken = first.subarray(0, bytes);
    if (first.length === bytes) this.pending.shift();
    else this.pending[0] = first.subarray(bytes);
    this.buffered -= bytes;
    return taken;
  }
}
