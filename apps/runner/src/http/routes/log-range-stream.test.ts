import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { AppError } from "@berth/protocol";
import { LogReader } from "../../runs/run-logs";
import { logRangeStream, parseByteRange } from "./log-range-stream";

describe("parseByteRange", () => {
  it("reads one byte range against the log's size: from an offset, between two, the last bytes", () => {
    expect(parseByteRange(undefined, 100)).toBeNull();
    expect(parseByteRange("bytes=10-", 100)).toEqual({ start: 10, end: 100 });
    expect(parseByteRange("bytes=10-19", 100)).toEqual({ start: 10, end: 20 });
    expect(parseByteRange("bytes=90-500", 100)).toEqual({ start: 90, end: 100 });
    expect(parseByteRange("bytes=-30", 100)).toEqual({ start: 70, end: 100 });
    expect(parseByteRange("bytes=-300", 100)).toEqual({ start: 0, end: 100 });
  });

  it("is unsatisfiable at or past the end, or for nothing at all", () => {
    expect(parseByteRange("bytes=100-", 100)).toBe("unsatisfiable");
    expect(parseByteRange("bytes=0-", 0)).toBe("unsatisfiable");
    expect(parseByteRange("bytes=-0", 100)).toBe("unsatisfiable");
    expect(parseByteRange("bytes=20-10", 100)).toBe("unsatisfiable");
  });

  it("refuses what is not one byte range, naming the header and its value", () => {
    for (const header of ["bytes=1-2,4-5", "items=0-", "bytes=-", "bytes=a-"]) {
      const error = (() => {
        try {
          return parseByteRange(header, 100);
        } catch (caught) {
          return caught;
        }
      })();
      expect(AppError.isInstance(error) && error.status).toBe(400);
      expect((error as Error).message).toContain(`Invalid Range header: ${JSON.stringify(header)}`);
    }
  });
});

describe("logRangeStream", () => {
  it("streams exactly the range's bytes of a log bigger than one read", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "berth-range-"));
    const file = path.join(dir, "stdout.log");
    const content = Buffer.from(Array.from({ length: 300_000 }, (_, i) => `line ${i}\n`).join(""));
    fs.writeFileSync(file, content);
    const read = async (start: number, end: number) => {
      const pieces: Buffer[] = [];
      for await (const piece of logRangeStream(new LogReader(dir, "stdout"), { start, end })) pieces.push(piece as Buffer);
      return Buffer.concat(pieces);
    };
    expect((await read(0, content.length)).equals(content)).toBe(true);
    expect((await read(1_000_001, 2_500_000)).equals(content.subarray(1_000_001, 2_500_000))).toBe(true);
    // A log shorter than the range (cut since the size was read) ends where the log does.
    expect((await read(content.length - 5, content.length + 100)).equals(content.subarray(content.length - 5))).toBe(true);
    fs.rmSync(dir, { recursive: true, force: true });
  });
});
