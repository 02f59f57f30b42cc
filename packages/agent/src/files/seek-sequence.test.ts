import { describe, expect, it } from "vitest";
import { normalisePunctuation, seekSequence } from "./seek-sequence";

describe("seekSequence", () => {
  it("tries exact, then trailing whitespace, then surrounding whitespace, then punctuation", () => {
    expect(seekSequence(["foo", "bar", "baz"], ["bar", "baz"], { from: 0 })).toBe(1);
    expect(seekSequence(["foo   ", "bar\t\t"], ["foo", "bar"], { from: 0 })).toBe(0);
    expect(seekSequence(["    foo   ", "   bar\t"], ["foo", "bar"], { from: 0 })).toBe(0);
    expect(seekSequence(["x", "a — “b”"], ['a - "b"'], { from: 0 })).toBe(1);
    // A stricter pass anywhere wins over a looser one earlier.
    expect(seekSequence(["  v", "v"], ["v"], { from: 0 })).toBe(1);
  });

  it("searches from `from`, tries the end first for End of File and a diff's hint before scanning", () => {
    expect(seekSequence(["a", "b", "a"], ["a"], { from: 1 })).toBe(2);
    expect(seekSequence(["a", "b", "a", "b"], ["a", "b"], { from: 0, eof: true })).toBe(2);
    expect(seekSequence(["a", "a", "a"], ["a"], { from: 0, hint: 1 })).toBe(1);
  });

  it("returns -1 when nothing matches or the pattern is longer than the file, and `from` for an empty one", () => {
    expect(seekSequence(["just one line"], ["too", "many", "lines"], { from: 0 })).toBe(-1);
    expect(seekSequence(["a"], ["b"], { from: 0 })).toBe(-1);
    expect(seekSequence(["a"], [], { from: 1 })).toBe(1);
  });

  it("maps Codex's dashes, quotes and odd spaces to ASCII", () => {
    expect(normalisePunctuation("\u2010\u2011\u2012\u2013\u2014\u2015\u2212")).toBe("-------");
    expect(normalisePunctuation("a\u2018\u2019\u201a\u201bb")).toBe("a''''b");
    expect(normalisePunctuation("a\u201c\u201d\u201e\u201fb")).toBe('a""""b');
    expect(normalisePunctuation("a\u00a0\u2002\u2009\u202f\u205f\u3000b")).toBe("a      b");
  });
});
