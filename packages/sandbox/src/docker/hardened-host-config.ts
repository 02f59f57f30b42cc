import type { SandboxPosture } from "@berth/protocol";
import type Docker from "dockerode";

export interface SandboxLimits {
  memoryBytes: number;
  nanoCpus: number;
  pidsLimit: number;
  /** Size of the tmpfs at /tmp. */
  tmpBytes: number;
  /** Size of the tmpfs at $HOME (/home/berth): tools write caches there, the root fs is read-only. */
  homeBytes: number;
}

export const DEFAULT_LIMITS: SandboxLimits = {
  memoryBytes: 1024 * 1024 * 1024,
  nanoCpus: 1_000_000_000,
  pidsLimit: 256,
  tmpBytes: 256 * 1024 * 1024,
  homeBytes: 64 * 1024 * 1024,
};

export const SANDBOX_USER = "1000:1000";
export const WORKSPACE_DIR = "/workspace";
export const HOME_DIR = "/home/berth";

/**
 * docs/architecture.md "Locked down by default": no capabilities, no privilege gain, read-only root with sized tmpfs,
 * non-root user, pids/memory/cpu limits, no network unless asked, an init reaping zombies, no Docker socket.
 * Memory == MemorySwap: no swap, so a hog meets the OOM killer instead of thrashing.
 */
export function hardenedHostConfig(opts: {
  volumeName: string;
  limits: SandboxLimits;
  network: string;
}): Docker.HostConfig {
  const { limits } = opts;
  return {
    CapDrop: ["ALL"],
    SecurityOpt: ["no-new-privileges"],
    ReadonlyRootfs: true,
    Tmpfs: {
      "/tmp": `rw,nosuid,nodev,size=${limits.tmpBytes},mode=1777`,
      [HOME_DIR]: `rw,nosuid,nodev,size=${limits.homeBytes},uid=1000,gid=1000,mode=0755`,
    },
    PidsLimit: limits.pidsLimit,
    Memory: limits.memoryBytes,
    MemorySwap: limits.memoryBytes,
    NanoCpus: limits.nanoCpus,
    NetworkMode: opts.network,
    Init: true,
    Mounts: [{ Type: "volume", Source: opts.volumeName, Target: WORKSPACE_DIR, ReadOnly: false }],
    // The agent's stdout is our RPC channel: a log driver would copy every reply to disk for nothing.
    LogConfig: { Type: "none", Config: {} },
    IpcMode: "private",
  };
}

/** The posture as receipts record it (SandboxPostureSchema); the extra fields are signed too. */
export function postureOf(opts: { limits: SandboxLimits; network: string }): SandboxPosture {
  return {
    user: SANDBOX_USER,
    readOnlyRootfs: true,
    capDrop: ["ALL"],
    noNewPrivileges: true,
    network: opts.network,
    init: true,
    pidsLimit: opts.limits.pidsLimit,
    memoryBytes: opts.limits.memoryBytes,
    nanoCpus: opts.limits.nanoCpus,
    memorySwapBytes: opts.limits.memoryBytes,
    tmpfs: { "/tmp": opts.limits.tmpBytes, [HOME_DIR]: opts.limits.homeBytes },
    dockerSocket: false,
  };
}
