import { describe, expect, it } from "vitest";
import { oomContainerOf } from "./engine-events";

describe("oomContainerOf", () => {
  it("reads the container of an oom event in either of the engine's shapes", () => {
    expect(oomContainerOf(JSON.stringify({ Action: "oom", Actor: { ID: "abc" } }))).toBe("abc");
    expect(oomContainerOf(JSON.stringify({ status: "oom", id: "def" }))).toBe("def");
  });

  it("ignores other events and lines that are not JSON", () => {
    expect(oomContainerOf(JSON.stringify({ Action: "die", Actor: { ID: "abc" } }))).toBeNull();
    expect(oomContainerOf(JSON.stringify({ Action: "oom" }))).toBeNull();
    expect(oomContainerOf("not json")).toBeNull();
  });
});
