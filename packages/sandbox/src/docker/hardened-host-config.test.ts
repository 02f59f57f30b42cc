import { SandboxPostureSchema } from "@berth/protocol";
import { describe, expect, it } from "vitest";
import { DEFAULT_LIMITS, hardenedHostConfig, postureOf } from "./hardened-host-config";

describe("hardenedHostConfig", () => {
  const config = hardenedHostConfig({ volumeName: "berth-ws-1", limits: DEFAULT_LIMITS, network: "none" });

  it("drops every capability but the agent's three and forbids privilege gain", () => {
    expect(config.CapDrop).toEqual(["ALL"]);
    expect(config.CapAdd).toEqual(["SETUID", "SETGID", "SETPCAP"]);
    expect(config.SecurityOpt).toContain("no-new-privileges");
    expect(config.Privileged).toBeUndefined();
  });

  it("mounts a read-only root with sized tmpfs and the session volume at /workspace", () => {
    expect(config.ReadonlyRootfs).toBe(true);
    expect(config.Tmpfs?.["/tmp"]).toMatch(/size=268435456/);
    // The skill catalog's root: root's and 0755, so workspace code (uid 1000) reads it and cannot write it.
    expect(config.Tmpfs?.["/skills"]).toBe("rw,nosuid,nodev,noexec,size=33554432,mode=0755");
    expect(config.Mounts).toEqual([{ Type: "volume", Source: "berth-ws-1", Target: "/workspace", ReadOnly: false }]);
  });

  it("limits pids, memory without swap, and cpu; runs an init; no network", () => {
    expect(config).toMatchObject({
      PidsLimit: 256,
      Memory: 2 ** 30,
      MemorySwap: 2 ** 30,
      NanoCpus: 1e9,
      Init: true,
      NetworkMode: "none",
    });
  });

  it("never mounts the Docker socket", () => {
    expect(JSON.stringify(config)).not.toContain("docker.sock");
    expect(config.Binds).toBeUndefined();
  });

  it("reports a posture that receipts accept", () => {
    const posture = postureOf({ limits: DEFAULT_LIMITS, network: "none" });
    expect(SandboxPostureSchema.safeParse(posture).success).toBe(true);
    expect(posture).toMatchObject({ user: "0:0", capDrop: ["ALL"], network: "none", pidsLimit: 256 });
    expect(posture).toMatchObject({ workspaceUser: "1000:1000", workspaceCapabilities: [] });
  });
});
