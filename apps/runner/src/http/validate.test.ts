import { describe, expect, it } from "vitest";
import { loneSurrogateIssue, mayEscapeSurrogate, unstorableParamIssue } from "./validate";

describe("unstorableParamIssue", () => {
  it("names a route parameter holding NUL, which PostgreSQL's text cannot store", () => {
    expect(unstorableParamIssue({ id: "run_\u0000x" })).toBe("id: must not contain NUL (U+0000, at index 4)");
  });

  it("names a lone surrogate, in a repeated query value too", () => {
    expect(unstorableParamIssue({ q: ["ok", "a\ud800"] })).toMatch(/^q: must be valid Unicode \(a lone UTF-16 surrogate \\ud800 at index 1\)/);
  });

  it("passes ordinary ids, names and queries", () => {
    expect(unstorableParamIssue({ id: "run_0123", name: "a skill", offset: "10" })).toBeNull();
    expect(unstorableParamIssue(undefined)).toBeNull();
  });
});

describe("mayEscapeSurrogate (the body parser walks only a body it cannot rule out)", () => {
  it("is true for every body whose parsed value holds a lone surrogate, in a value or a key, in either case", () => {
    for (const json of ['{"a":"\\ud800"}', '{"\\uDFFF":1}', '["x\\uDbFfy"]']) {
      expect(loneSurrogateIssue(JSON.parse(json))).not.toBeNull();
      expect(mayEscapeSurrogate(json)).toBe(true);
    }
  });

  it("is false for text decoded from UTF-8, emoji and other escapes included, which parses to no lone surrogate", () => {
    const decoded = new TextDecoder().decode(Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xed, 0xa0, 0x80, 0x22, 0x7d]));
    for (const json of ['{"args":{"path":"one.txt"}}', '{"a":"😀 \\u00e9 \\n"}', decoded]) {
      expect(loneSurrogateIssue(JSON.parse(json))).toBeNull();
      expect(mayEscapeSurrogate(json)).toBe(false);
    }
  });
});
