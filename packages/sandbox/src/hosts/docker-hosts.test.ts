import { describe, expect, it } from "vitest";
import { DEFAULT_MAX_SESSIONS_PER_HOST, parseDockerHosts } from "./docker-hosts";

describe("parseDockerHosts", () => {
  it("reads names, URLs and each host's settings", () => {
    const hosts = parseDockerHosts("local=unix:///var/run/docker.sock, dh2=tcp://10.213.90.2:2376?tls=/etc/berth/dh2&max=20");
    expect(hosts).toEqual([
      { name: "local", url: "unix:///var/run/docker.sock", tlsDir: undefined, maxSessions: DEFAULT_MAX_SESSIONS_PER_HOST, egress: true },
      { name: "dh2", url: "tcp://10.213.90.2:2376", tlsDir: "/etc/berth/dh2", maxSessions: 20, egress: false },
    ]);
  });

  it("lets egress be switched per host", () => {
    expect(parseDockerHosts("a=unix:///s?egress=0")[0]?.egress).toBe(false);
    expect(parseDockerHosts("b=ssh://berth@build-2?egress=1")[0]?.egress).toBe(true);
  });

  it.each([
    ["", "names no host"],
    ["noequals", "entry 1 (\"noequals\"): expected name=url"],
    ["Bad=unix:///s", "name must match"],
    ["a=unix:///s,a=unix:///t", "the name a is used twice"],
    ["a=not a url", "is not a URL"],
    ["a=tcp://10.0.0.2:2376", "needs tls=<dir>"],
    ["a=http://x:2375", "the scheme must be unix://, tcp:// or ssh://, got http://"],
    ["a=unix:///s?max=0", "max must be a whole number ≥ 1, got \"0\""],
    ["a=unix:///s?egress=yes", "egress must be 1 or 0, got \"yes\""],
    ["a=unix:///s?size=3", "unknown setting size"],
  ])("refuses %j, naming what is wrong", (text, message) => {
    expect(() => parseDockerHosts(text)).toThrow(message);
  });
});
