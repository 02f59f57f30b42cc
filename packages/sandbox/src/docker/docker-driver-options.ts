import type Docker from "dockerode";
import { EGRESS_NETWORK } from "./egress-network";
import type { SandboxLimits } from "./hardened-host-config";

export interface DockerSandboxDriverOptions {
  /** Names this runner in labels; reconcile touches only containers carrying it. */
  runnerId: string;
  /** A ready client (remote hosts, tests); default: `new Docker({ socketPath })`, or DOCKER_HOST via dockerode. */
  docker?: Docker;
  socketPath?: string;
  /** Default `berth-sandbox:latest`. */
  image?: string;
  /** Warm containers kept ready while no sessions are asked for; default 2, 0 disables the pool. */
  poolSize?: number;
  /**
   * The memory the pool may hold in idle warm containers when it grows ahead of demand: after a burst of
   * acquires it keeps `poolSize` plus what the burst took (warm-pool.ts), counting each container at
   * WARM_CONTAINER_BYTES (warm-pool-budget.ts). Default 0: a fixed pool of `poolSize`. The runner passes
   * BERTH_WARM_POOL_MEMORY, whose default is `defaultWarmPoolMemory` (the container memory limit, at most an
   * eighth of the host).
   */
  poolMemoryBytes?: number;
  limits?: Partial<SandboxLimits>;
  /**
   * Stop a sandbox after this long without calls, touch() or a running background process (seen by the
   * heartbeat); workspace kept. Default 30 min, 0 = never.
   */
  idleTimeoutMs?: number;
  /** Default per-call timeout (tools with their own timeoutMs get that plus a grace). Default 120 s. */
  callTimeoutMs?: number;
  /** Container start to hello answered. Default 30 s. */
  handshakeTimeoutMs?: number;
  /** Containers starting at once (sessions go before pool refills). Default 6. */
  maxConcurrentStarts?: number;
  /** agent.ping interval; 0 disables. Default 10 s. */
  heartbeatIntervalMs?: number;
  /** A ping unanswered within this counts as missed; 3 missed in a row kill the sandbox. Default 5 s. */
  heartbeatTimeoutMs?: number;
  /**
   * Network for sessions that ask for egress. Default `berth-egress` (EGRESS_NETWORK), created here when missing
   * and firewalled off the host by setup; any other name is used as it is.
   */
  egressNetwork?: string;
  /**
   * A size limit per workspace (workspace-quota.ts): images live under `dir`, one folder per runner. Unset: no
   * limit. Where it cannot be enforced, start() warns and workspaces are plain volumes.
   */
  workspaceQuota?: { dir: string; sizeBytes: number };
  /** Sent in agent.hello. */
  runnerVersion?: string;
}

export type ResolvedDriverOptions = Required<
  Pick<
    DockerSandboxDriverOptions,
    | "poolSize"
    | "idleTimeoutMs"
    | "callTimeoutMs"
    | "handshakeTimeoutMs"
    | "heartbeatIntervalMs"
    | "heartbeatTimeoutMs"
    | "egressNetwork"
    | "maxConcurrentStarts"
  >
> & { runnerVersion: string | undefined };

export function resolveDriverOptions(options: DockerSandboxDriverOptions): ResolvedDriverOptions {
  return {
    poolSize: options.poolSize ?? 2,
    idleTimeoutMs: options.idleTimeoutMs ?? 30 * 60_000,
    callTimeoutMs: options.callTimeoutMs ?? 120_000,
    handshakeTimeoutMs: options.handshakeTimeoutMs ?? 30_000,
    maxConcurrentStarts: options.maxConcurrentStarts ?? 6,
    heartbeatIntervalMs: options.heartbeatIntervalMs ?? 10_000,
    heartbeatTimeoutMs: options.heartbeatTimeoutMs ?? 5_000,
    egressNetwork: options.egressNetwork ?? EGRESS_NETWORK.name,
    runnerVersion: options.runnerVersion,
  };
}
