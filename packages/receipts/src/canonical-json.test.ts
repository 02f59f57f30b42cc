import { describe, expect, it } from "vitest";
import { canonicalJson } from "./canonical-json";
import { sha256Json } from "./sha256-hex";

describe("canonicalJson", () => {
  it("sorts keys at every depth and drops whitespace", () => {
    expect(canonicalJson({ b: 1, a: { d: [3, { z: 1, y: 2 }], c: null } })).toBe(
      '{"a":{"c":null,"d":[3,{"y":2,"z":1}]},"b":1}',
    );
  });

  it("serialises numbers the RFC 8785 way", () => {
    // Values from RFC 8785 appendix B.
    expect(canonicalJson([1e21, 1e-7, 333333333.3333333, 4.5, -0, 0.000001])).toBe(
      "[1e+21,1e-7,333333333.3333333,4.5,0,0.000001]",
    );
  });

  it("sorts keys by UTF-16 code units, as RFC 8785 requires", () => {
    // RFC 8785 §3.2.3 example keys.
    const value = {
      "\u20ac": "Euro",
      "\r": "CR",
      "\ufb33": "Hebrew",
      "1": "One",
      "\ud83d\ude00": "Smiley",
      "\u0080": "Control",
      "\u00f6": "o",
    };
    // Read the order from the text: JSON.parse would move the integer-like key "1" first.
    const order = [...canonicalJson(value).matchAll(/"([^"]+)":"(\w+)"/g)].map((m) => m[2]);
    expect(order).toEqual(["CR", "One", "Control", "o", "Euro", "Smiley", "Hebrew"]);
  });

  it("gives the same hash whatever the key order of the input", () => {
    expect(sha256Json({ a: 1, b: [true, "x"] })).toBe(sha256Json(JSON.parse('{ "b": [true, "x"], "a": 1 }')));
  });

  it("refuses values that are not JSON data", () => {
    expect(() => canonicalJson(undefined)).toThrow(/not JSON data/);
    expect(() => canonicalJson(Number.NaN)).toThrow();
  });
});
