import { SKILLS_ROOT, WORKSPACE_ROOT, type SandboxPosture } from "@berth/protocol";
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

/**
 * The container starts as root so the agent can stay out of reach of the code it runs: it keeps real uid 0 and
 * works as the workspace user (packages/agent/src/processes/separate-from-workspace.ts), and starts workspace code
 * as that user with no capabilities (launch.ts). Docker gives a non-root container user no capabilities at all
 * (CapAdd only widens its bounding set: measured with the Docker 20.10 engine on this project's CI machine), so a dedicated non-root agent uid could
 * not start processes as another user.
 */
export const SANDBOX_USER = "0:0";
/** The user workspace code (bash, run_script, terminals) runs as, and owner of everything in /workspace. */
export const WORKSPACE_USER = "1000:1000";
/**
 * What the agent keeps: SETUID/SETGID to start workspace code as WORKSPACE_USER, SETPCAP to empty that code's
 * bounding set. Nothing else: no DAC_OVERRIDE, CHOWN or FOWNER (files are written as the workspace user), no KILL
 * (the agent's effective uid is the workspace user's, which lets it signal that code), no SYS_PTRACE for anyone.
 */
export const AGENT_CAPABILITIES = ["SETUID", "SETGID", "SETPCAP"];
export const WORKSPACE_DIR = WORKSPACE_ROOT;
export const HOME_DIR = "/home/berth";
/**
 * Size of the tmpfs at SKILLS_ROOT: root's, mode 0755, so the agent (as root) writes the skill catalog there and
 * workspace code can only read it. Mounted in every container, pooled ones too: no session is needed to make it.
 */
export const SKILLS_TMPFS_BYTES = 32 * 1024 * 1024;

/**
 * docs/architecture.md "Locked down by default": no capabilities but the agent's three (AGENT_CAPABILITIES), no
 * privilege gain, read-only root with sized tmpfs,
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
    CapAdd: AGENT_CAPABILITIES,
    SecurityOpt: ["no-new-privileges"],
    ReadonlyRootfs: true,
    Tmpfs: {
      "/tmp": `rw,nosuid,nodev,size=${limits.tmpBytes},mode=1777`,
      [HOME_DIR]: `rw,nosuid,nodev,size=${limits.homeBytes},uid=1000,gid=1000,mode=0755`,
      [SKILLS_ROOT]: `rw,nosuid,nodev,noexec,size=${SKILLS_TMPFS_BYTES},mode=0755`,
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
    agentUser: `real ${SANDBOX_USER}, effective ${WORKSPACE_USER}, not dumpable`,
    workspaceUser: WORKSPACE_USER,
    agentCapabilities: AGENT_CAPABILITIES,
    workspaceCapabilities: [],
    readOnlyRootfs: true,
    capDrop: ["ALL"],
    noNewPrivileges: true,
    network: opts.network,
    init: true,
    pidsLimit: opts.limits.pidsLimit,
    memoryBytes: opts.limits.memoryBytes,
    nanoCpus: opts.limits.nanoCpus,
    memorySwapBytes: opts.limits.memoryBytes,
    tmpfs: { "/tmp": opts.limits.tmpBytes, [HOME_DIR]: opts.limits.homeBytes, [SKILLS_ROOT]: SKILLS_TMPFS_BYTES },
    dockerSocket: false,
  };
}
