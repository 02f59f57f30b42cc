import { describe, expect, it } from "vitest";
import { containerNameFor, sessionFromContainerName } from "./sandbox-labels";

describe("container names carry the session", () => {
  it("round-trips plain and odd session ids", () => {
    for (const id of ["ses_01J8X", "a.b-c_d", "with space/and:colon", "ünïcode"]) {
      expect(sessionFromContainerName(`/${containerNameFor(id)}`)).toBe(id);
    }
  });

  it("keeps readable ids readable", () => {
    expect(containerNameFor("ses_123")).toBe("berth-s-ses_123");
  });

  it("says a pool container belongs to no session", () => {
    expect(sessionFromContainerName("/berth-pool-abc123")).toBeNull();
  });
});
