import { describe, expect, it } from "vitest";
import { hashToken, newToken, tokenFromHeaders } from "./tokens";

describe("tokens", () => {
  it("are random, prefixed, and stored only as a sha256", () => {
    const a = newToken();
    expect(a).toMatch(/^berth_[A-Za-z0-9_-]{43}$/);
    expect(newToken()).not.toBe(a);
    expect(hashToken(a)).toMatch(/^[0-9a-f]{64}$/);
    expect(hashToken(a)).not.toContain(a);
  });

  it("come from the bearer header only, never from a cookie", () => {
    expect(tokenFromHeaders({ authorization: "Bearer abc" })).toBe("abc");
    expect(tokenFromHeaders({ cookie: "x=1; berth_token=tok%2Fen; y=2" } as { authorization?: string })).toBeNull();
    expect(tokenFromHeaders({ authorization: "Basic abc" })).toBeNull();
    expect(tokenFromHeaders({})).toBeNull();
  });
});
