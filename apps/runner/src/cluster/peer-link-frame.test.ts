import { describe, expect, it } from "vitest";
import { encodeFrame, FrameReader, PEER_LINK_FRAME_MAX, PeerLinkToOwnerSchema, type PeerLinkFrame, type PeerLinkToOwner } from "./peer-link-frame";

function reader() {
  const frames: PeerLinkFrame<PeerLinkToOwner>[] = [];
  const errors: string[] = [];
  const read = new FrameReader<PeerLinkToOwner>(PeerLinkToOwnerSchema, (frame) => frames.push(frame), (error) => errors.push(error.message));
  return { read, frames, errors };
}

const call = { type: "call", id: 7, sessionId: "s1", tool: "read_file", authorization: "Bearer t" } as const;

describe("peer link frames", () => {
  it("gives back each frame's head and payload, however the stream cuts them", () => {
    const body = Buffer.from('{"args":{"path":"é.txt"}}');
    const bytes = Buffer.concat([encodeFrame(call, body), encodeFrame({ type: "cancel", id: 7 }), encodeFrame(call, "")]);
    // One byte at a time, then all at once: the same three frames.
    for (const chunks of [[...bytes].map((byte) => Buffer.from([byte])), [bytes]]) {
      const { read, frames, errors } = reader();
      for (const chunk of chunks) read.push(chunk);
      expect(errors).toEqual([]);
      expect(frames.map((frame) => frame.head)).toEqual([call, { type: "cancel", id: 7 }, call]);
      expect(frames.map((frame) => frame.payload.toString())).toEqual([body.toString(), "", ""]);
    }
  });

  it("refuses a frame over the limit, a head that is not JSON or not one of the link's, and reads nothing after", () => {
    const over = Buffer.alloc(8);
    over.writeUInt32BE(PEER_LINK_FRAME_MAX + 1, 0);
    const notJson = Buffer.concat([Buffer.from([0, 0, 0, 7, 0, 0, 0, 3]), Buffer.from("{x}")]);
    const cases: [Buffer, string][] = [
      [over, `peer link: a frame of ${PEER_LINK_FRAME_MAX + 1} bytes (the limit is ${PEER_LINK_FRAME_MAX}, the least 4)`],
      [notJson, "peer link: a frame head that is not JSON"],
      [encodeFrame({ type: "answer", id: 1, status: 200 }), "peer link: a frame head that is none of the link's: type: Invalid discriminator value. Expected 'hello' | 'call' | 'cancel'"],
      [encodeFrame({ ...call, id: -1 }), "peer link: a frame head that is none of the link's: id: Too small: expected number to be >=0"],
    ];
    for (const [bad, message] of cases) {
      const { read, frames, errors } = reader();
      read.push(Buffer.concat([bad, encodeFrame(call)]));
      read.push(encodeFrame(call));
      expect(errors).toEqual([expect.stringContaining(message)]);
      expect(frames).toEqual([]);
    }
  });
});
