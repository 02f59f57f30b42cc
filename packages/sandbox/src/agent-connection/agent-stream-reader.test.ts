import { describe, expect, it } from "vitest";
import { OUTPUT_FRAME_MAX_DATA_BYTES, encodeOutputFrameHead } from "@berth/protocol";
import { AgentStreamReader } from "./agent-stream-reader";

function frame(offset: number, data: string): Buffer {
  const bytes = Buffer.from(data);
  return Buffer.concat([encodeOutputFrameHead({ callId: "c", stream: "stdout", offset }, bytes.length), bytes]);
}

function reader(maxLineBytes = 1024) {
  const seen: string[] = [];
  const r = new AgentStreamReader(
    {
      line: (bytes) => seen.push(`line ${bytes.toString()}`),
      frame: (header, data) => seen.push(`frame ${JSON.parse(header.toString()).offset} ${data.toString()}`),
      fatal: (message) => seen.push(`fatal ${message}`),
    },
    maxLineBytes,
  );
  return { r, seen };
}

describe("AgentStreamReader", () => {
  it("tells lines from frames at each message boundary, however the bytes are cut", () => {
    const stream = Buffer.concat([Buffer.from('{"a":1}\n'), frame(0, "h€llo\n"), frame(7, "x\ny"), Buffer.from('{"b":"é"}\n\n')]);
    const expected = ['line {"a":1}', "frame 0 h€llo\n", "frame 7 x\ny", 'line {"b":"é"}'];
    for (const size of [1, 2, 5, 9, 13, stream.length]) {
      const { r, seen } = reader();
      for (let i = 0; i < stream.length; i += size) r.push(stream.subarray(i, i + size));
      expect(seen, `cut every ${size} bytes`).toEqual(expected);
    }
  });

  it("fails on a frame whose data length is over the bound, naming the limit and the value, and delivers nothing after", () => {
    const { r, seen } = reader();
    const head = Buffer.from(encodeOutputFrameHead({ stream: "stdout", offset: 0 }, 1));
    head.writeUInt32BE(OUTPUT_FRAME_MAX_DATA_BYTES + 1, 5);
    r.push(Buffer.concat([head, Buffer.from('x{"after":1}\n')]));
    expect(seen).toEqual([`fatal sent a malformed output frame: output frame data length: 1 to ${OUTPUT_FRAME_MAX_DATA_BYTES} bytes (got ${OUTPUT_FRAME_MAX_DATA_BYTES + 1})`]);
    r.push(Buffer.from('{"later":1}\n'));
    expect(seen).toHaveLength(1);
  });

  it("fails on a line longer than its bound", () => {
    const { r, seen } = reader(8);
    r.push(Buffer.from("0123456789"));
    expect(seen).toEqual(["fatal sent a line over 8 bytes"]);
  });
});
