import type {
  AgentPingResult,
  ProcessStatusNotification,
  SandboxInfo,
  SandboxOomEvent,
  SandboxPosture,
  SandboxTermination,
  ToolCallParams,
  ToolResult,
} from "@berth/protocol";
import type { AgentOutput, ResultSchema } from "../agent-connection";

/** What a session asks of its sandbox. */
export interface SandboxSpec {
  /** Network egress; off by default (`--network none`). Egress sandboxes never come from the warm pool. */
  egress?: boolean;
  /**
   * The session's existing workspace volume (the runner persists `SandboxInfo.volumeName`). Given after a
   * runner restart so the session comes back with its files; omitted for a new session.
   */
  volumeName?: string;
}

export interface SandboxCallOptions {
  /** Overrides the driver's call timeout; the agent's own tool timeouts still apply inside. */
  timeoutMs?: number;
  /** Aborting sends tool.abort; the call then resolves with the agent's aborted result. */
  signal?: AbortSignal;
}

/** A session the runner's database still holds; its sandbox and workspace must survive a reconcile. */
export interface LiveSession {
  sessionId: string;
  volumeName?: string;
  /**
   * Another runner holds the session (its lease in the database): reconcile neither adopts nor reaps its
   * container, whatever runner label that carries, and keeps its workspace.
   */
  elsewhere?: boolean;
}

/**
 * What `adopt` found for the session: its container running and now attached here, dead (removed; the workspace
 * kept, restartable), or no container of it on this driver's engines.
 */
export type AdoptOutcome = "adopted" | "terminated" | "missing";

export interface ReconcileReport {
  /** Running containers of live sessions, re-attached and handshaken. */
  adopted: string[];
  /** Sessions whose container was dead or unresponsive: container removed, workspace kept, restartable. */
  terminated: string[];
  /** Containers removed because their session is gone, or because they were an old warm pool's. */
  reapedContainers: string[];
  reapedVolumes: string[];
}

export type SessionOutputEvent = AgentOutput & { sessionId: string };
export type SessionProcessStatusEvent = ProcessStatusNotification & { sessionId: string };

export type SandboxDriverEvents = {
  /** The session's sandbox is handshaken and takes calls (after acquire, create, restart or adoption). */
  ready: [SandboxInfo];
  output: [SessionOutputEvent];
  "process.status": [SessionProcessStatusEvent];
  /** The sandbox stopped; persist `cause` on the session. Pending calls have already been rejected. */
  terminated: [SandboxTermination];
  /** A process inside was OOM-killed while the sandbox kept running. */
  oom: [SandboxOomEvent];
  /** Something went wrong in the background (pool refill, heartbeat, cleanup); never thrown. */
  warning: [{ sessionId: string | null; message: string; error?: unknown }];
};

export type SandboxDriverEventName = keyof SandboxDriverEvents;
export type SandboxDriverListener<K extends SandboxDriverEventName> = (...args: SandboxDriverEvents[K]) => void;

/**
 * One sandbox per session, behind which sits Docker today (DockerSandboxDriver) and could sit Kubernetes.
 * Persistence of sessions is the runner's job; a driver only reports lifecycle through events.
 */
export interface SandboxDriver {
  /** Starts background work (warm pool refill, engine event watch). Call after `reconcile`. */
  start(): Promise<void>;
  /** On runner start: adopts sandboxes of live sessions, reaps everything else carrying our labels. */
  reconcile(live: Iterable<LiveSession | string>): Promise<ReconcileReport>;
  /**
   * Attaches to the session's container wherever its runner label points (a failover: the database gave this
   * runner the session, by compare-and-set, from `fromRunnerId`). Nothing else of that runner's is touched.
   */
  adopt(sessionId: string, from: { fromRunnerId: string; volumeName?: string }): Promise<AdoptOutcome>;
  /**
   * Lets go of the session's container without stopping it, because another runner holds the session now (this
   * runner's lease lapsed): calls fail at once, no termination is reported, the container keeps running for it.
   */
  detach(sessionId: string): Promise<void>;
  /** A new sandbox started cold for the session (never from the pool); fails if one is running. */
  create(sessionId: string, spec?: SandboxSpec): Promise<SandboxInfo>;
  /** A ready sandbox for the session: its running one, a warm one from the pool, or a (re)started one. */
  acquire(sessionId: string, spec?: SandboxSpec): Promise<SandboxInfo>;
  /** Runs one tool in the session's sandbox. A dead sandbox fails at once with its termination cause. */
  call(sessionId: string, params: ToolCallParams, opts?: SandboxCallOptions): Promise<ToolResult>;
  abort(sessionId: string, callId: string): Promise<boolean>;
  /**
   * One agent method other than tool.call (the terminal.* methods of packages/protocol), its result
   * checked with `schema`: the container is untrusted. Counts as activity for the idle timeout.
   */
  request<T>(
    sessionId: string,
    method: string,
    params: unknown,
    schema: ResultSchema<T>,
    opts?: SandboxCallOptions,
  ): Promise<T>;
  ping(sessionId: string): Promise<AgentPingResult>;
  /** Marks activity that is not a call (the user is typing), so the idle timeout waits. */
  touch(sessionId: string): void;
  /** A fresh container on the same workspace volume: files survive. */
  restart(sessionId: string): Promise<SandboxInfo>;
  /** Stops the container and keeps the workspace; the session can be acquired or restarted later. */
  release(sessionId: string): Promise<void>;
  /** Removes container and workspace volume; the session's sandbox is gone for good. */
  destroy(sessionId: string, spec?: Pick<SandboxSpec, "volumeName">): Promise<void>;
  get(sessionId: string): SandboxInfo | undefined;
  list(): SandboxInfo[];
  /** The security posture the session's container runs with, as receipts record it. */
  posture(sessionId: string): SandboxPosture;
  /** Resolves when the warm pool is full (benchmarks, tests, readiness probes). */
  whenPoolFull(): Promise<void>;
  /** Stops background work and drains the pool; session containers keep running for the next runner. */
  close(opts?: { stopSessions?: boolean }): Promise<void>;
  on<K extends SandboxDriverEventName>(event: K, listener: SandboxDriverListener<K>): this;
  off<K extends SandboxDriverEventName>(event: K, listener: SandboxDriverListener<K>): this;
}
