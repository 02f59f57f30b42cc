import { z } from "zod";
import type { RunLogChunkRecord } from "@berth/db";

/** The channel a run's runner publishes its stored chunks on. */
export const logChannel = (runId: string) => `log:${runId}`;

const HeaderSchema = z.object({
  chunks: z.array(
    z.object({
      seq: z.number().int().min(0),
      stream: z.enum(["stdout", "stderr"]),
      offset: z.number().int().min(0),
      ms: z.number(),
      length: z.number().int().min(0),
    }),
  ),
  /** Set on the last message of a run: how many chunks it stored in all. */
  end: z.number().int().min(0).optional(),
});

/** What one `log:<runId>` message carries: a batch of chunks just stored, and/or the end of the log. */
export interface LogChunkMessage {
  chunks: RunLogChunkRecord[];
  end?: number;
}

/**
 * Encodes a message as a length-prefixed JSON header followed by the chunks' bytes, so output crosses Redis as
 * bytes (not base64 in JSON).
 */
export function encodeLogChunkMessage(message: LogChunkMessage): Buffer {
  const header = Buffer.from(
    JSON.stringify({
      chunks: message.chunks.map((c) => ({ seq: c.seq, stream: c.stream, offset: c.offset, ms: c.ms, length: c.data.length })),
      ...(message.end === undefined ? {} : { end: message.end }),
    }),
  );
  const size = Buffer.alloc(4);
  size.writeUInt32BE(header.length);
  return Buffer.concat([size, header, ...message.chunks.map((c) => c.data)]);
}

/** The message, or null when the bytes are not one (a foreign or truncated publish). */
export function decodeLogChunkMessage(runId: string, bytes: Buffer): LogChunkMessage | null {
  if (bytes.length < 4) return null;
  const headerEnd = 4 + bytes.readUInt32BE(0);
  if (headerEnd > bytes.length) return null;
  let json: unknown;
  try {
    json = JSON.parse(bytes.toString("utf8", 4, headerEnd));
  } catch {
    return null;
  }
  const header = HeaderSchema.safeParse(json);
  if (!header.success) return null;
  let at = headerEnd;
  const chunks: RunLogChunkRecord[] = [];
  for (const c of header.data.chunks) {
    if (at + c.length > bytes.length) return null;
    chunks.push({ runId, seq: c.seq, stream: c.stream, offset: c.offset, ms: c.ms, data: bytes.subarray(at, at + c.length) });
    at += c.length;
  }
  return { chunks, ...(header.data.end === undefined ? {} : { end: header.data.end }) };
}
