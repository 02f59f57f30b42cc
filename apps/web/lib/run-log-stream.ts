import { utf8Boundary } from "@berth/protocol";
import { ApiError, runLogDownloadUrl, type LogStream } from "./api";

/** A piece of a log's text and the byte offsets it spans in that log: [offset, end). */
export type LogPiece = { text: string; offset: number; end: number };

/**
 * Reads a log from `offset` to its end as it is when asked, in one streamed request (a `Range` on the
 * download, docs/api.md) instead of pages, handing over each piece as it arrives with its byte offsets; a
 * piece never splits a character. Resolves with the offset it ended at (`offset` when nothing is past it).
 */
export async function streamRunLog(
  runId: string,
  stream: LogStream | "combined",
  offset: number,
  onPiece: (piece: LogPiece) => void,
  signal?: AbortSignal,
): Promise<number> {
  const path = runLogDownloadUrl(runId, stream as LogStream);
  const response = await fetch(path, { credentials: "same-origin", headers: { range: `bytes=${offset}-` }, cache: "no-store", signal });
  // 416: the log has nothing past `offset` (yet).
  if (response.status === 416) return offset;
  if (response.status !== 206 || !response.body) throw new ApiError(response.status, "http_error", `GET ${path.split("?")[0]} (Range bytes=${offset}-) answered ${response.status}`);
  const decoder = new TextDecoder();
  const reader = response.body.getReader();
  let at = offset;
  let carry = new Uint8Array(0);
  const hand = (bytes: Uint8Array) => {
    if (bytes.length === 0) return;
    onPiece({ text: decoder.decode(bytes), offset: at, end: at + bytes.length });
    at += bytes.length;
  };
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    let bytes = value;
    if (carry.length) {
      bytes = new Uint8Array(carry.length + value.length);
      bytes.set(carry);
      bytes.set(value, carry.length);
    }
    const whole = utf8Boundary(bytes);
    hand(bytes.subarray(0, whole));
    carry = bytes.slice(whole);
  }
  // A log that ends inside a character (cut by a crash) is shown as it is.
  hand(carry);
  return at;
}
