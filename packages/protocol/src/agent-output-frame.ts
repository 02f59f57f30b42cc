import { z } from "zod";

/**
 * Live output travels from the agent to the runner as binary frames between the JSON-RPC lines, not as base64
 * inside a JSON notification (a third more bytes, and a JSON encode and parse of every chunk):
 *
 *   0x00 | header length (u32 BE) | data length (u32 BE) | header (UTF-8 JSON, OutputChunkHeaderSchema) | data
 *
 * 0x00 never starts a JSON-RPC line, so the runner tells a frame from a line by its first byte. Both lengths are
 * bounded; the runner checks them and the header (the container is untrusted) and ends the connection on a
 * malformed frame, since a stream of lengths it cannot trust has no next message to resynchronise on.
 */
export const OUTPUT_FRAME_MARKER = 0x00;
/** Marker plus the two lengths. */
export const OUTPUT_FRAME_PREFIX_BYTES = 9;
export const OUTPUT_FRAME_MAX_HEADER_BYTES = 1024;
/** A frame carries at most this much output; the agent splits a longer chunk (its pipe reads are 64 KiB). */
export const OUTPUT_FRAME_MAX_DATA_BYTES = 1024 * 1024;

export const OutputStreamSchema = z.enum(["stdout", "stderr"]);
export type OutputStream = z.infer<typeof OutputStreamSchema>;

/**
 * What a chunk of live output belongs to: a running tool call (callId: run_script, bash exec) or a background
 * process (processId, plus the callId of the call that started it, so output that arrives before the start
 * call's result can already be attributed). `offset` is the byte offset of the chunk within its stream.
 */
export const OutputChunkHeaderSchema = z.strictObject({
  callId: z.string().max(200).optional(),
  processId: z.string().max(200).optional(),
  stream: OutputStreamSchema,
  offset: z.number().int().nonnegative(),
});
export type OutputChunkHeader = z.infer<typeof OutputChunkHeaderSchema>;

const encoder = new TextEncoder();

/** The bytes before a frame's data: marker, both lengths and the header. */
export function encodeOutputFrameHead(header: OutputChunkHeader, dataLength: number): Uint8Array {
  const json = encoder.encode(JSON.stringify(header));
  if (json.length > OUTPUT_FRAME_MAX_HEADER_BYTES)
    throw new RangeError(`output frame header: at most ${OUTPUT_FRAME_MAX_HEADER_BYTES} bytes (got ${json.length})`);
  if (dataLength < 1 || dataLength > OUTPUT_FRAME_MAX_DATA_BYTES)
    throw new RangeError(`output frame data: 1 to ${OUTPUT_FRAME_MAX_DATA_BYTES} bytes (got ${dataLength})`);
  const head = new Uint8Array(OUTPUT_FRAME_PREFIX_BYTES + json.length);
  const view = new DataView(head.buffer);
  view.setUint8(0, OUTPUT_FRAME_MARKER);
  view.setUint32(1, json.length);
  view.setUint32(5, dataLength);
  head.set(json, OUTPUT_FRAME_PREFIX_BYTES);
  return head;
}

/**
 * The two lengths of a frame from its first OUTPUT_FRAME_PREFIX_BYTES bytes, or why they cannot be trusted
 * (each message names the field, its limit and the value).
 */
export function decodeOutputFramePrefix(prefix: Uint8Array): { headerBytes: number; dataBytes: number } | { error: string } {
  const view = new DataView(prefix.buffer, prefix.byteOffset, OUTPUT_FRAME_PREFIX_BYTES);
  const headerBytes = view.getUint32(1);
  const dataBytes = view.getUint32(5);
  if (headerBytes < 1 || headerBytes > OUTPUT_FRAME_MAX_HEADER_BYTES)
    return { error: `output frame header length: 1 to ${OUTPUT_FRAME_MAX_HEADER_BYTES} bytes (got ${headerBytes})` };
  if (dataBytes < 1 || dataBytes > OUTPUT_FRAME_MAX_DATA_BYTES)
    return { error: `output frame data length: 1 to ${OUTPUT_FRAME_MAX_DATA_BYTES} bytes (got ${dataBytes})` };
  return { headerBytes, dataBytes };
}
