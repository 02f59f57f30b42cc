import { describe, expect, it } from "vitest";
import { unstorableParamIssue } from "./validate";

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
