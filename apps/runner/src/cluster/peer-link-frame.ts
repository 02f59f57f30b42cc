import { z } from "zod";

/**
 * The frames of a peer link (peer-link.ts): `[u32 frame length][u32 head length][head: JSON][payload: raw bytes]`,
 * big-endian, the frame length counting what follows it. The head is small and schema-checked; the payload is a
 * tool call's body or its answer as the HTTP request and response carry them (no second JSON escape of 8 MiB of
 * write_file content).
 */
export const PeerLinkHelloSchema = z.object({ type: z.literal("hello"), runnerId: z.string().min(1).max(32), proof: z.string().regex(/^[0-9a-f]{64}$/) });
/** A tool call for the owner: the client's credential as it came (the owner authenticates it), and what its guard needs. */
export const PeerLinkCallSchema = z.object({
  type: z.literal("call"),
  id: z.number().int().nonnegative(),
  sessionId: z.string().min(1).max(100),
  tool: z.string().min(1).max(100),
  authorization: z.string().optional(),
  cookie: z.string().optional(),
  origin: z.string().optional(),
  secFetchSite: z.string().optional(),
});
/** The client hung up: the owner aborts the call. */
export const PeerLinkCancelSchema = z.object({ type: z.literal("cancel"), id: z.number().int().nonnegative() });
/** The owner's answer: the status and body its fast path would write; `close` when that closes the connection. */
export const PeerLinkAnswerSchema = z.object({ type: z.literal("answer"), id: z.number().int().nonnegative(), status: z.number().int().min(100).max(599), close: z.boolean().optional() });

export const PeerLinkToOwnerSchema = z.discriminatedUnion("type", [PeerLinkHelloSchema, PeerLinkCallSchema, PeerLinkCancelSchema]);
export type PeerLinkHello = z.infer<typeof PeerLinkHelloSchema>;
export type PeerLinkCall = z.infer<typeof PeerLinkCallSchema>;
export type PeerLinkToOwner = z.infer<typeof PeerLinkToOwnerSchema>;
export type PeerLinkAnswer = z.infer<typeof PeerLinkAnswerSchema>;

export type PeerLinkFrame<Head> = { head: Head; payload: Buffer };

/**
 * A call frame's largest size: a tool call's body (the runner's 12 MiB body limit) with room to spare. A larger
 * length is a broken or hostile peer, not a frame to wait for.
 */
export const PEER_LINK_FRAME_MAX = 64 * 1024 * 1024;
/**
 * An answer frame's: an answer is as large as the owner's HTTP answer would be, and comes from a runner that proved
 * itself; this is over the longest JSON text V8 can make (2^29 characters).
 */
export const PEER_LINK_ANSWER_MAX = 1024 * 1024 * 1024;
const HEAD_MAX = 64 * 1024;

/** One frame's bytes, in one buffer (one write). */
export function encodeFrame(head: object, payload: Buffer | string = ""): Buffer {
  const headText = JSON.stringify(head);
  const headBytes = Buffer.byteLength(headText);
  const payloadBytes = typeof payload === "string" ? Buffer.byteLength(payload) : payload.length;
  const frame = Buffer.allocUnsafe(8 + headBytes + payloadBytes);
  frame.writeUInt32BE(4 + headBytes + payloadBytes, 0);
  frame.writeUInt32BE(headBytes, 4);
  frame.write(headText, 8, "utf8");
  if (typeof payload === "string") frame.write(payload, 8 + headBytes, "utf8");
  else payload.copy(frame, 8 + headBytes);
  return frame;
}

/**
 * Splits a byte stream into frames whose head `schema` accepts. `push` each chunk as it arrives; `onFrame` gets
 * each whole frame; the first malformed one (a length over the limit, a head that is not JSON or not one of the
 * schema's) is `onError`'s, with a message naming what was wrong, and nothing after it is read.
 */
export class FrameReader<Head> {
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  private failed = false;

  constructor(
    private readonly schema: z.ZodType<Head>,
    private readonly onFrame: (frame: PeerLinkFrame<Head>) => void,
    private readonly onError: (error: Error) => void,
    private readonly max = PEER_LINK_FRAME_MAX,
  ) {}

  push(chunk: Buffer): void {
    if (this.failed) return;
    this.pending.push(chunk);
    this.pendingBytes += chunk.length;
    if (this.pendingBytes < 4) return;
    let buffer = this.pending.length === 1 ? this.pending[0]! : Buffer.concat(this.pending, this.pendingBytes);
    let offset = 0;
    while (buffer.length - offset >= 4) {
      const length = buffer.readUInt32BE(offset);
      if (length < 4 || length > this.max) return this.fail(`a frame of ${length} bytes (the limit is ${this.max}, the least 4)`);
      if (buffer.length - offset - 4 < length) break;
      const headLength = buffer.readUInt32BE(offset + 4);
      if (headLength > Math.min(HEAD_MAX, length - 4)) return this.fail(`a frame head of ${headLength} bytes in a frame of ${length} (the limit is ${HEAD_MAX})`);
      const headStart = offset + 8;
      const payloadStart = headStart + headLength;
      const end = offset + 4 + length;
      let head: unknown;
      try {
        head = JSON.parse(buffer.toString("utf8", headStart, payloadStart));
      } catch {
        return this.fail("a frame head that is not JSON");
      }
      const parsed = this.schema.safeParse(head);
      if (!parsed.success) return this.fail(`a frame head that is none of the link's: ${parsed.error.issues.map((issue) => `${issue.path.join(".") || "head"}: ${issue.message}`).join("; ")}`);
      offset = end;
      this.onFrame({ head: parsed.data, payload: buffer.subarray(payloadStart, end) });
      if (this.failed) return;
    }
    buffer = buffer.subarray(offset);
    this.pending = buffer.length ? [buffer] : [];
    this.pendingBytes = buffer.length;
  }

  private fail(what: string): void {
    this.failed = true;
    this.pending = [];
    this.pendingBytes = 0;
    this.onError(new Error(`peer link: ${what}`));
  }
}
