import { Readable } from "node:stream";
import { AppError } from "@berth/protocol";
import type { LogReader } from "../../runs/run-logs";

/** One read of a streamed log: large, so 100 MB is a hundred reads, not thousands. */
const READ = 1024 * 1024;

/** A byte range of a log: [start, end), end exclusive. */
export interface ByteRange {
  start: number;
  end: number;
}

/**
 * The one range of a `Range` header against a log of `size` bytes (RFC 9110 §14: `bytes=a-b`, `bytes=a-`,
 * `bytes=-n`), null without a header, "unsatisfiable" when it starts at or past the end (a 416). A header
 * that is not one byte range is a 400 naming it.
 */
export function parseByteRange(header: string | undefined, size: number): ByteRange | null | "unsatisfiable" {
  if (header === undefined) return null;
  const match = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!match || (match[1] === "" && match[2] === "")) {
    throw new AppError({ code: "bad_request", message: `Invalid Range header: ${JSON.stringify(header.slice(0, 100))} (one range, bytes=start-[end] or bytes=-suffix)` });
  }
  const [, first = "", last = ""] = match;
  if (first === "") return Number(last) === 0 || size === 0 ? "unsatisfiable" : { start: Math.max(0, size - Number(last)), end: size };
  const start = Number(first);
  const end = last === "" ? size : Math.min(size, Number(last) + 1);
  if (start >= size || end <= start) return "unsatisfiable";
  return { start, end };
}

/** The bytes of [start, end) through one kept-open reader, in large reads; the reader is closed at the end or on abort. */
export function logRangeStream(reader: LogReader, range: ByteRange): Readable {
  let at = range.start;
  return new Readable({
    highWaterMark: READ,
    read() {
      const want = Math.min(READ, range.end - at);
      const into = want > 0 ? Buffer.allocUnsafe(want) : null;
      const read = into ? reader.read(at, into) : 0;
      if (!into || read === 0) {
        reader.close();
        this.push(null);
        return;
      }
      at += read;
      this.push(read < want ? into.subarray(0, read) : into);
    },
    destroy(error, callback) {
      reader.close();
      callback(error);
    },
  });
}
