import { describe, expect, it } from "vitest";
import { decodeReplays, emptyReplay, encodeReplays, newBytes, shown, type ReplayState } from "./terminal-replay";

const bytes = (text: string) => new TextEncoder().encode(text);
const text = (data: Uint8Array) => new TextDecoder().decode(data);

/** Feeds chunks as a reattaching client would get them and returns what reached the screen. */
function screen(chunks: [number, string][], start: ReplayState = emptyReplay()) {
  let state = start;
  let out = "";
  const gaps: number[] = [];
  for (const [offset, data] of chunks) {
    const piece = newBytes(state, offset, bytes(data));
    if (piece === null) continue;
    if ("gap" in piece) {
      gaps.push(offset);
      continue;
    }
    out += text(piece.bytes);
    state = shown(state, piece.bytes);
  }
  return { out, state, gaps };
}

describe("terminal replay bookkeeping", () => {
  it("a replay that overlaps what the tab has shows only the new part, once", () => {
    const { out, state } = screen([
      [0, "line-1\r\n"],
      [8, "line-2\r\n"],
      // reattached from offset 4: the server replays from there
      [4, "-1\r\nline-2\r\nline-3\r\n"],
      [24, "line-4\r\n"],
      [24, "line-4\r\n"],
    ]);
    expect(out).toBe("line-1\r\nline-2\r\nline-3\r\nline-4\r\n");
    expect(state.offset).toBe(32);
  });

  it("a chunk past the tab's offset is a gap, not shown", () => {
    const { out, gaps } = screen([
      [0, "abc"],
      [10, "xyz"],
    ]);
    expect(out).toBe("abc");
    expect(gaps).toEqual([10]);
  });

  it("keeps only the last bytes as the tail, ending at the offset", () => {
    let state = emptyReplay();
    state = shown(state, bytes("0123456789"), 6);
    expect(text(state.tail)).toBe("456789");
    state = shown(state, bytes("ab"), 6);
    expect(text(state.tail)).toBe("6789ab");
    expect(state.offset).toBe(12);
  });

  it("round-trips through sessionStorage and drops malformed entries", () => {
    const states = new Map([["term_a", shown(emptyReplay(), bytes("héllo \u001b[31mred\u001b[0m"))]]);
    const decoded = decodeReplays(JSON.stringify(encodeReplays(states)));
    expect(decoded.get("term_a")?.offset).toBe(states.get("term_a")?.offset);
    expect(text(decoded.get("term_a")!.tail)).toBe("héllo \u001b[31mred\u001b[0m");
    expect(decodeReplays("{not json").size).toBe(0);
    expect(
      decodeReplays(
        JSON.stringify({ a: { offset: -1, tail: "" }, b: { offset: 1, tail: "AAAA" }, c: { offset: 3, tail: "AAAA" } }),
      ).size,
    ).toBe(1);
  });
});
