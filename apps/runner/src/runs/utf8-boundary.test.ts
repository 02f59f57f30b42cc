import { describe, expect, it } from "vitest";
import { utf8Boundary } from "./utf8-boundary";

describe("utf8Boundary", () => {
  const euro = Buffer.from("a€", "utf8"); // 61 e2 82 ac
  it("keeps whole characters and cuts before a partial one", () => {
    expect(utf8Boundary(euro)).toBe(4);
    expect(utf8Boundary(euro.subarray(0, 3))).toBe(1);
    expect(utf8Boundary(euro.subarray(0, 2))).toBe(1);
    expect(utf8Boundary(Buffer.from("plain"))).toBe(5);
    expect(utf8Boundary(Buffer.alloc(0))).toBe(0);
  });
  it("handles 4-byte characters", () => {
    const emoji = Buffer.from("x😀", "utf8");
    for (let cut = 2; cut < emoji.length; cut++) expect(utf8Boundary(emoji.subarray(0, cut))).toBe(1);
    expect(utf8Boundary(emoji)).toBe(emoji.length);
  });
});
