import { describe, expect, it } from "vitest";
import { ForwardMarker } from "./forward-marker";

const SECRET = "cluster-secret-0123456789abcdef0123456789";

describe("ForwardMarker", () => {
  const a = new ForwardMarker("runner-a", SECRET);
  const b = new ForwardMarker("runner-b", SECRET);

  it("is believed by another runner with the same secret, for the path it was signed for, naming its sender", () => {
    const value = a.sign("/api/sessions/s1/tools/bash");
    expect(b.verify(value, "/api/sessions/s1/tools/bash?wait=10")).toBe("runner-a");
    expect(b.verify(value, "/api/sessions/s2/tools/bash")).toBeNull();
  });

  it("is not believed when signed with another secret, forged, stale or malformed", () => {
    const other = new ForwardMarker("runner-a", "another-secret-0123456789abcdef01234567");
    expect(b.verify(other.sign("/mcp/s1"), "/mcp/s1")).toBeNull();
    const [, time, mac] = a.sign("/mcp/s1").split(" ");
    expect(b.verify(`runner-c ${time} ${mac}`, "/mcp/s1")).toBeNull();
    expect(b.verify(a.sign("/mcp/s1", Date.now() - 120_000), "/mcp/s1")).toBeNull();
    expect(b.verify("runner-a 1 abc", "/mcp/s1")).toBeNull();
    expect(b.verify(["x", "y"], "/mcp/s1")).toBeNull();
    expect(b.verify(undefined, "/mcp/s1")).toBeNull();
  });

  it("reuses a path's marker for a second, then signs it anew; another path gets its own", () => {
    const at = 1_700_000_000_000;
    const first = a.sign("/api/sessions/s9/tools/read_file", at);
    expect(a.sign("/api/sessions/s9/tools/read_file?x=1", at + 999)).toBe(first);
    expect(b.verify(first, "/api/sessions/s9/tools/read_file", at + 999)).toBe("runner-a");
    const later = a.sign("/api/sessions/s9/tools/read_file", at + 1_000);
    expect(later).not.toBe(first);
    expect(later.split(" ")[1]).toBe(String(at + 1_000));
    expect(a.sign("/api/sessions/s8/tools/read_file", at + 1_000)).not.toBe(later);
  });

  it("without a secret signs nothing and believes nothing", () => {
    const alone = new ForwardMarker("runner-a", undefined);
    expect(alone.canSign).toBe(false);
    expect(() => alone.sign("/mcp/s1")).toThrow(/BERTH_CLUSTER_SECRET is not set/);
    expect(alone.verify(a.sign("/mcp/s1"), "/mcp/s1")).toBeNull();
  });
});
