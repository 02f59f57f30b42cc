import { describe, expect, it } from "vitest";
import { pickHost } from "./pick-host";

const host = (name: string, sessions: number, maxSessions: number, egress = true) => ({ name, sessions, maxSessions, egress });

describe("pickHost", () => {
  it("takes the host with the most free slots, the first listed on a tie", () => {
    expect(pickHost([host("a", 3, 10), host("b", 1, 10)], false).host?.name).toBe("b");
    expect(pickHost([host("a", 1, 4), host("b", 5, 8)], false).host?.name).toBe("a");
    expect(pickHost([host("a", 2, 4), host("b", 6, 8)], false).host?.name).toBe("a");
  });

  it("skips full hosts, and hosts without egress for a session that asks for it", () => {
    expect(pickHost([host("a", 4, 4), host("b", 7, 8)], false).host?.name).toBe("b");
    expect(pickHost([host("a", 0, 9, false), host("b", 7, 8)], true).host?.name).toBe("b");
  });

  it("says why no host can take the session", () => {
    expect(pickHost([host("a", 4, 4), host("b", 8, 8)], false)).toEqual({ host: null, reason: "every Docker host is full: a 4/4, b 8/8" });
    expect(pickHost([host("a", 0, 4, false)], true)).toEqual({
      host: null,
      reason: "no Docker host allows network egress (egress=1 in BERTH_DOCKER_HOSTS)",
    });
  });
});
