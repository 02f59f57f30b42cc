import { randomBytes } from "node:crypto";
import { EventEmitter } from "node:events";
import Docker from "dockerode";
import type { AgentPingResult, SandboxInfo, SandboxPosture, ToolCallParams, ToolResult } from "@berth/protocol";
import type { ResultSchema } from "../agent-connection";
import type {
  AdoptOutcome,
  LiveSession,
  ReconcileReport,
  SandboxCallOptions,
  SandboxDriver,
  SandboxDriverEvents,
  SandboxSpec,
} from "../driver";
import { callDeadlineMs } from "../driver/call-deadline";
import { emitWarning } from "../driver/emit-warning";
import { requireSessionState, runningSessionState } from "../driver/session-state";
import { SandboxError, sandboxNotRunning } from "../errors";
import { StartGate } from "../start-gate";
import { WarmPool, warmPoolMaxSize } from "../warm-pool";
import { ContainerLauncher, type DockerAttached } from "./container-launcher";
import { errorMessage } from "./docker-errors";
import {
  type DockerSandboxDriverOptions,
  type ResolvedDriverOptions,
  resolveDriverOptions,
} from "./docker-driver-options";
import { DockerSessions } from "./docker-sessions";
import { EGRESS_NETWORK, egressFirewallProblem, ensureEgressNetwork } from "./egress-network";
import { EngineEvents } from "./engine-events";
import { DEFAULT_LIMITS, postureOf, type SandboxLimits } from "./hardened-host-config";
import { POOL_SESSION, sandboxLabels } from "./sandbox-labels";
import { WorkspaceVolumes } from "./workspace-volumes";

export type { DockerSandboxDriverOptions } from "./docker-driver-options";

/**
 * SandboxDriver on a Docker engine through dockerode: one hardened container per session running
 * berth-agent as its command, JSON-RPC over the attached stdin/stdout, a named volume per session at
 * /workspace, a warm pool of handshaken containers, honest termination causes. A facade over small modules:
 * the per-session lock, liveness and session state are driver-agnostic (../driver); the sessions' lifecycle
 * (docker-sessions.ts), launching, volumes, reconcile's plan and engine events are the Docker parts.
 */
export class DockerSandboxDriver extends EventEmitter<SandboxDriverEvents> implements SandboxDriver {
  readonly runnerId: string;
  readonly image: string;
  readonly limits: SandboxLimits;
  private readonly docker: Docker;
  private readonly opts: ResolvedDriverOptions;
  private readonly sessions: DockerSessions;
  private readonly launcher: ContainerLauncher;
  private readonly volumes: WorkspaceVolumes;
  private readonly engineEvents: EngineEvents;
  private readonly pool: WarmPool<DockerAttached>;
  private readonly gate: StartGate;
  private imageId: string | null = null;
  private readonly quotaWanted: { dir: string; sizeBytes: number } | null;
  private egressReady: Promise<void> | null = null;
  /** Warm containers' volumes between creation and joining the pool: reconcile must not reap them. */
  private readonly warmVolumesStarting = new Set<string>();
  private started = false;

  constructor(options: DockerSandboxDriverOptions) {
    super();
    this.runnerId = options.runnerId;
    this.image = options.image ?? "berth-sandbox:latest";
    this.limits = { ...DEFAULT_LIMITS, ...options.limits };
    this.docker = options.docker ?? new Docker(options.socketPath ? { socketPath: options.socketPath } : undefined);
    this.opts = resolveDriverOptions(options);
    this.quotaWanted = options.workspaceQuota ?? null;
    const warnAll = (message: string, error?: unknown) => this.warn(null, message, error);
    this.launcher = new ContainerLauncher({
      docker: this.docker,
      image: this.image,
      limits: this.limits,
      ...this.opts,
      warn: warnAll,
    });
    this.volumes = new WorkspaceVolumes({ docker: this.docker, runnerId: this.runnerId, warn: warnAll });
    this.gate = new StartGate(Math.max(1, this.opts.maxConcurrentStarts));
    this.sessions = new DockerSessions({
      runnerId: this.runnerId,
      docker: this.docker,
      launcher: this.launcher,
      volumes: this.volumes,
      gate: this.gate,
      liveness: this.opts,
      ensureEgress: () => this.ensureEgress(),
      image: () => ({ image: this.image, imageId: this.imageId }),
      events: this,
    });
    this.engineEvents = new EngineEvents({
      docker: this.docker,
      runnerId: this.runnerId,
      onOom: (id) => this.sessions.onOom(id),
      warn: warnAll,
    });
    this.pool = new WarmPool<DockerAttached>({
      size: this.opts.poolSize,
      maxSize: warmPoolMaxSize(this.opts.poolSize, options.poolMemoryBytes ?? 0),
      // Refills leave two of the start gate's slots to sessions' own cold starts.
      maxParallel: Math.max(1, this.opts.maxConcurrentStarts - 2),
      create: () => this.createWarm(),
      dispose: (item) => this.disposeContainer(item, true),
      isAlive: (item) => !item.conn.closed,
      onError: (error) => this.warn(null, `warm pool refill failed: ${errorMessage(error)}`, error),
    });
  }

  // ---- lifecycle of the driver ----

  async start(): Promise<void> {
    if (this.started) return;
    this.started = true;
    await this.resolveImageId();
    await this.prepareDiskAndNetwork();
    await this.engineEvents.watch();
    this.pool.fill();
  }

  whenPoolFull(): Promise<void> {
    return this.pool.whenFull();
  }

  async close(opts: { stopSessions?: boolean } = {}): Promise<void> {
    this.engineEvents.close();
    await this.pool.drain();
    await Promise.allSettled(
      [...this.sessions.states.values()].map(async (s) => {
        this.sessions.liveness.clearTimers(s);
        if (!s.attached) return;
        if (opts.stopSessions) return this.sessions.stop(s, "released");
        // Detach only: StdinOnce is false, so the agent keeps running for the next runner to adopt.
        s.stopping = "released";
        s.attached.conn.fail(sandboxNotRunning(s.sessionId, "released"));
        this.launcher.detach(s.attached);
      }),
    );
  }

  // ---- SandboxDriver ----

  create(sessionId: string, spec: SandboxSpec = {}): Promise<SandboxInfo> {
    return this.sessions.locks.run(sessionId, async () => {
      const existing = this.sessions.states.get(sessionId);
      if (existing && existing.status !== "terminated") {
        throw new SandboxError({
          sessionId,
          reason: "conflict",
          message: `Session ${sessionId} already has a sandbox (${existing.status})`,
        });
      }
      const state =
        existing ?? this.sessions.newState(sessionId, spec.volumeName ?? this.volumes.newName(), spec.egress ?? false);
      if (!existing && !spec.volumeName) state.freshVolume = true;
      if (existing && spec.egress !== undefined) state.egress = spec.egress;
      return this.sessions.coldStart(state);
    });
  }

  acquire(sessionId: string, spec: SandboxSpec = {}): Promise<SandboxInfo> {
    return this.sessions.locks.run(sessionId, async () => {
      const existing = this.sessions.states.get(sessionId);
      if (existing?.status === "ready" && existing.attached && !existing.attached.conn.closed) {
        this.sessions.liveness.markActive(existing);
        return this.sessions.info(existing);
      }
      if (existing) {
        if (spec.egress !== undefined) existing.egress = spec.egress;
        return this.sessions.coldStart(existing);
      }
      if (spec.volumeName)
        return this.sessions.coldStart(this.sessions.newState(sessionId, spec.volumeName, spec.egress ?? false));
      if (!spec.egress) {
        const warm = this.pool.take();
        if (warm) {
          if (!warm.conn.closed) return this.sessions.claimWarm(sessionId, warm);
          void this.disposeContainer(warm, true);
        }
      }
      const state = this.sessions.newState(sessionId, this.volumes.newName(), spec.egress ?? false);
      state.freshVolume = true;
      return this.sessions.coldStart(state);
    });
  }

  async call(sessionId: string, params: ToolCallParams, opts: SandboxCallOptions = {}): Promise<ToolResult> {
    const state = await runningSessionState(this.sessions.states, sessionId);
    const attached = state.attached;
    state.inFlight++;
    this.sessions.liveness.markActive(state);
    try {
      const result = await attached.conn.callTool(params, {
        timeoutMs: opts.timeoutMs ?? callDeadlineMs(params, this.opts.callTimeoutMs),
        ...(opts.signal ? { signal: opts.signal } : {}),
      });
      return this.volumes.explainFullWorkspace(result);
    } catch (error) {
      // A call we gave up on must not keep running inside: ask the agent to stop it.
      if (SandboxError.isSandboxError(error) && error.reason === "timeout" && !attached.conn.closed) {
        attached.conn.abortTool(params.callId, { timeoutMs: 2_000 }).catch(() => undefined);
      }
      throw error;
    } finally {
      state.inFlight--;
      this.sessions.liveness.markActive(state);
    }
  }

  async request<T>(
    sessionId: string,
    method: string,
    params: unknown,
    schema: ResultSchema<T>,
    opts: SandboxCallOptions = {},
  ): Promise<T> {
    const state = await runningSessionState(this.sessions.states, sessionId);
    this.sessions.liveness.markActive(state);
    return state.attached.conn.request(method, params, schema, {
      timeoutMs: opts.timeoutMs ?? this.opts.callTimeoutMs,
      ...(opts.signal ? { signal: opts.signal } : {}),
    });
  }

  async abort(sessionId: string, callId: string): Promise<boolean> {
    const state = await runningSessionState(this.sessions.states, sessionId);
    return state.attached.conn.abortTool(callId, { timeoutMs: this.opts.heartbeatTimeoutMs });
  }

  async ping(sessionId: string): Promise<AgentPingResult> {
    const state = await runningSessionState(this.sessions.states, sessionId);
    return state.attached.conn.ping({ timeoutMs: this.opts.heartbeatTimeoutMs });
  }

  touch(sessionId: string): void {
    const state = this.sessions.states.get(sessionId);
    if (state?.status === "ready") this.sessions.liveness.markActive(state);
  }

  restart(sessionId: string): Promise<SandboxInfo> {
    return this.sessions.locks.run(sessionId, async () => {
      const state = requireSessionState(this.sessions.states, sessionId);
      if (state.attached) await this.sessions.stop(state, "released");
      return this.sessions.coldStart(state);
    });
  }

  release(sessionId: string): Promise<void> {
    return this.sessions.locks.run(sessionId, async () => {
      const state = this.sessions.states.get(sessionId);
      if (state?.attached) await this.sessions.stop(state, "released");
    });
  }

  destroy(sessionId: string, spec: Pick<SandboxSpec, "volumeName"> = {}): Promise<void> {
    return this.sessions.locks.run(sessionId, async () => {
      const state = this.sessions.states.get(sessionId);
      if (state?.attached) await this.sessions.stop(state, "deleted");
      if (state?.removal) await state.removal;
      const volumeName = state?.volumeName ?? spec.volumeName;
      if (volumeName) await this.volumes.remove(volumeName);
      if (state) {
        this.sessions.liveness.clearTimers(state);
        state.status = "deleted";
        this.sessions.states.delete(sessionId);
      }
    });
  }

  get(sessionId: string): SandboxInfo | undefined {
    const state = this.sessions.states.get(sessionId);
    return state ? this.sessions.info(state) : undefined;
  }

  list(): SandboxInfo[] {
    return [...this.sessions.states.values()].map((s) => this.sessions.info(s));
  }

  posture(sessionId: string): SandboxPosture {
    const state = this.sessions.states.get(sessionId);
    return postureOf({ limits: this.limits, network: state?.egress ? this.opts.egressNetwork : "none" });
  }

  adopt(sessionId: string, from: { fromRunnerId: string; volumeName?: string }): Promise<AdoptOutcome> {
    return this.sessions.locks.run(sessionId, () => this.sessions.adoptFrom(sessionId, from.volumeName));
  }

  detach(sessionId: string): Promise<void> {
    return this.sessions.locks.run(sessionId, () => {
      const state = this.sessions.states.get(sessionId);
      if (!state) return Promise.resolve();
      this.sessions.liveness.clearTimers(state);
      this.sessions.states.delete(sessionId);
      if (!state.attached) return Promise.resolve();
      // As close() does for every session: the attach stream ends, the agent keeps running (StdinOnce is false).
      state.stopping = "released";
      state.attached.conn.fail(sandboxNotRunning(sessionId, "released"));
      this.launcher.detach(state.attached);
      return Promise.resolve();
    });
  }

  reconcile(live: Iterable<LiveSession | string>): Promise<ReconcileReport> {
    // Warm containers' volumes, including those still starting, are not leftovers.
    return this.sessions.reconcile(live, () => [
      ...this.pool.items().map((item) => item.volumeName),
      ...this.warmVolumesStarting,
    ]);
  }

  // ---- internals ----

  private async resolveImageId(): Promise<void> {
    try {
      this.imageId = (await this.docker.getImage(this.image).inspect()).Id;
    } catch (error) {
      throw new SandboxError({
        sessionId: "-",
        reason: "docker",
        message: `Sandbox image ${this.image} not found; run \`node scripts/build-sandbox-image.mjs\``,
        cause: error,
      });
    }
  }

  /** Workspace size limits and the egress firewall: said once at start when they are not in place. */
  private async prepareDiskAndNetwork(): Promise<void> {
    // dockerode's modem has a socketPath for a local engine, a host for tcp:// and ssh://.
    const localEngine = Boolean((this.docker.modem as { socketPath?: unknown }).socketPath);
    await this.volumes.enableQuota(this.quotaWanted, localEngine);
    if (this.opts.egressNetwork === EGRESS_NETWORK.name && localEngine && process.platform === "linux") {
      const problem = await egressFirewallProblem();
      if (problem) this.warn(null, problem);
    }
  }

  /** Our own egress bridge exists before the first egress session starts; another name is the caller's. */
  private ensureEgress(): Promise<void> {
    if (this.opts.egressNetwork !== EGRESS_NETWORK.name) return Promise.resolve();
    this.egressReady ??= ensureEgressNetwork(this.docker).catch((error: unknown) => {
      this.egressReady = null;
      throw error;
    });
    return this.egressReady;
  }

  private async createWarm(): Promise<DockerAttached> {
    const volumeName = this.volumes.newName();
    this.warmVolumesStarting.add(volumeName);
    try {
      await this.volumes.ensure(volumeName, true);
      const name = `berth-pool-${randomBytes(6).toString("hex")}`;
      try {
        const labels = sandboxLabels(this.runnerId, POOL_SESSION, volumeName, false);
        const spec = { name, labels, volumeName, egress: false, sessionId: POOL_SESSION };
        const attached = await this.gate.run(() => this.launcher.start(spec), { background: true });
        attached.onEnd = () => this.pool.remove(attached);
        if (attached.conn.closed) attached.onEnd();
        return attached;
      } catch (error) {
        await this.volumes.remove(volumeName);
        throw error;
      }
    } finally {
      this.warmVolumesStarting.delete(volumeName);
    }
  }

  private async disposeContainer(attached: DockerAttached, withVolume: boolean): Promise<void> {
    await this.launcher.dispose(attached);
    if (withVolume) await this.volumes.remove(attached.volumeName);
  }

  private warn(sessionId: string | null, message: string, error?: unknown): void {
    emitWarning(this, sessionId, message, error);
  }
}
