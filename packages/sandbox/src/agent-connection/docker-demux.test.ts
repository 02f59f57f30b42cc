import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import { demuxDockerStream } from "./docker-demux";

function frame(type: number, text: string): Buffer {
  const body = Buffer.from(text);
  const head = Buffer.alloc(8);
  head[0] = type;
  head.writeUInt32BE(body.length, 4);
  return Buffer.concat([head, body]);
}

function demux(stream: Buffer, cut: number) {
  const source = new PassThrough();
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  stdout.on("data", (b: Buffer) => out.push(b));
  stderr.on("data", (b: Buffer) => err.push(b));
  demuxDockerStream(source, stdout, stderr);
  for (let i = 0; i < stream.length; i += cut) source.write(stream.subarray(i, i + cut));
  return { out: () => Buffer.concat(out).toString(), err: () => Buffer.concat(err).toString() };
}

describe("demuxDockerStream", () => {
  it("splits stdout and stderr frames however the stream is cut, stdin frames dropped", async () => {
    const stream = Buffer.concat([frame(1, "héllo "), frame(2, "oops\n"), frame(0, "ignored"), frame(1, "x".repeat(70_000)), frame(1, "bye\n")]);
    for (const cut of [1, 3, 7, 8, 9, 4096, stream.length]) {
      const { out, err } = demux(stream, cut);
      await new Promise((r) => setImmediate(r));
      expect(out(), `cut every ${cut} bytes`).toBe(`héllo ${"x".repeat(70_000)}bye\n`);
      expect(err()).toBe("oops\n");
    }
  });

  it("passes a stream that is not multiplexed through to stdout from the first bad header on", async () => {
    const { out, err } = demux(Buffer.concat([frame(1, "ok "), Buffer.from("plain text, no header")]), 5);
    await new Promise((r) => setImmediate(r));
    expect(out()).toBe("ok plain text, no header");
    expect(err()).toBe("");
  });
});
