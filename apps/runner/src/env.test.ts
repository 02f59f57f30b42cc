import { describe, expect, it } from "vitest";
import { parseEnv } from "./env";

describe("parseEnv", () => {
  it("defaults to localhost and the embedded database", () => {
    const result = parseEnv({});
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.env.BERTH_HOST).toBe("127.0.0.1");
    expect(result.env.BERTH_RUNNER_PORT).toBe(4000);
    expect(result.env.DATABASE_URL).toBeUndefined();
  });

  it("names each bad variable and its value", () => {
    const result = parseEnv({ BERTH_RUNNER_PORT: "99999", DATABASE_URL: "mysql://x", BERTH_ADMIN_TOKEN: "short" });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.errors.join("\n")).toMatch(/BERTH_RUNNER_PORT="99999"/);
    expect(result.errors.join("\n")).toMatch(/DATABASE_URL="mysql:\/\/x": must start with postgresql/);
    expect(result.errors.join("\n")).toMatch(/BERTH_ADMIN_TOKEN="short": must be at least 16/);
  });

  it("reads BERTH_DOCKER_HOSTS (unset: the one local engine) and names a bad entry", () => {
    const none = parseEnv({});
    expect(none.ok && none.env.BERTH_DOCKER_HOSTS).toBeNull();
    const two = parseEnv({ BERTH_DOCKER_HOSTS: "local=unix:///var/run/docker.sock,dh2=tcp://10.213.90.2:2376?tls=/etc/berth/dh2&max=8" });
    expect(two.ok && two.env.BERTH_DOCKER_HOSTS?.map((h) => [h.name, h.maxSessions])).toEqual([
      ["local", 50],
      ["dh2", 8],
    ]);
    const bad = parseEnv({ BERTH_DOCKER_HOSTS: "dh2=tcp://10.213.90.2:2376" });
    expect(bad.ok).toBe(false);
    if (bad.ok) return;
    expect(bad.errors.join("\n")).toMatch(/BERTH_DOCKER_HOSTS="dh2=tcp:\/\/10.213.90.2:2376": .*needs tls=<dir>/);
  });

  it("keeps run logs 90 days by default, 0 for ever, and names a bad BERTH_LOG_RETENTION_DAYS", () => {
    const defaults = parseEnv({});
    expect(defaults.ok && defaults.env.BERTH_LOG_RETENTION_DAYS).toBe(90);
    const forever = parseEnv({ BERTH_LOG_RETENTION_DAYS: "0" });
    expect(forever.ok && forever.env.BERTH_LOG_RETENTION_DAYS).toBe(0);
    const bad = parseEnv({ BERTH_LOG_RETENTION_DAYS: "-3" });
    expect(bad.ok).toBe(false);
    if (bad.ok) return;
    expect(bad.errors.join("\n")).toMatch(/BERTH_LOG_RETENTION_DAYS="-3": must be 0 \(keep every log\) or more/);
  });

  it("reads BERTH_ALLOWED_HOSTS as a list and names a bad entry", () => {
    const good = parseEnv({ BERTH_ALLOWED_HOSTS: " berth.example.com, 10.0.0.5:3000 " });
    expect(good.ok && good.env.BERTH_ALLOWED_HOSTS).toEqual(["berth.example.com", "10.0.0.5:3000"]);
    const bad = parseEnv({ BERTH_ALLOWED_HOSTS: "berth.example.com,http://x/" });
    expect(bad.ok).toBe(false);
    if (bad.ok) return;
    expect(bad.errors.join("\n")).toMatch(/BERTH_ALLOWED_HOSTS="berth.example.com,http:\/\/x\/": must be a comma-separated list of host names/);
  });

  it("reads BERTH_WORKSPACE_SIZE in binary units (default 10 GiB, 0 = no limit) and names a bad value", () => {
    const defaults = parseEnv({});
    expect(defaults.ok && defaults.env.BERTH_WORKSPACE_SIZE).toBe(10 * 1024 ** 3);
    const small = parseEnv({ BERTH_WORKSPACE_SIZE: "64MiB" });
    expect(small.ok && small.env.BERTH_WORKSPACE_SIZE).toBe(64 * 1024 ** 2);
    const none = parseEnv({ BERTH_WORKSPACE_SIZE: "0" });
    expect(none.ok && none.env.BERTH_WORKSPACE_SIZE).toBe(0);
    for (const value of ["ten gigs", "1MiB", "5XB"]) {
      const bad = parseEnv({ BERTH_WORKSPACE_SIZE: value });
      expect(bad.ok).toBe(false);
      if (bad.ok) continue;
      expect(bad.errors.join("\n")).toContain(`BERTH_WORKSPACE_SIZE=${JSON.stringify(value)}: must be a size such as 10GiB`);
    }
  });

  it("reads BERTH_WARM_POOL_MEMORY as a size (unset: the runner derives it, 0: a fixed pool) and names a bad value", () => {
    const defaults = parseEnv({});
    expect(defaults.ok && defaults.env.BERTH_WARM_POOL_MEMORY).toBeUndefined();
    const set = parseEnv({ BERTH_WARM_POOL_MEMORY: "512MiB" });
    expect(set.ok && set.env.BERTH_WARM_POOL_MEMORY).toBe(512 * 1024 ** 2);
    const fixed = parseEnv({ BERTH_WARM_POOL_MEMORY: "0" });
    expect(fixed.ok && fixed.env.BERTH_WARM_POOL_MEMORY).toBe(0);
    const bad = parseEnv({ BERTH_WARM_POOL_MEMORY: "lots" });
    expect(bad.ok).toBe(false);
    if (bad.ok) return;
    expect(bad.errors.join("\n")).toContain('BERTH_WARM_POOL_MEMORY="lots": must be a size such as 1GiB');
  });
});
