import { randomBytes } from "node:crypto";
import { EventEmitter } from "node:events";
import { PassThrough } from "node:stream";
import Docker from "dockerode";
import type {
  AgentHelloResult,
  AgentPingResult,
  SandboxInfo,
  SandboxPosture,
  SandboxStatus,
  SandboxTermination,
  TerminationCause,
  ToolCallParams,
  ToolResult,
} from "@berth/protocol";
import { AgentConnection, type ResultSchema, boundLine } from "../agent-connection";
import { callDeadlineMs } from "../driver/call-deadline";
import type {
  LiveSession,
  ReconcileReport,
  SandboxCallOptions,
  SandboxDriver,
  SandboxDriverEvents,
  SandboxSpec,
} from "../driver";
import { SandboxError, sandboxNotRunning } from "../errors";
import { StartGate } from "../start-gate";
import { WarmPool } from "../warm-pool";
import {
  DEFAULT_LIMITS,
  HOME_DIR,
  SANDBOX_USER,
  WORKSPACE_USER,
  WORKSPACE_DIR,
  hardenedHostConfig,
  postureOf,
  type SandboxLimits,
} from "./hardened-host-config";
import {
  POOL_SESSION,
  SandboxLabel,
  containerNameFor,
  runnerFilter,
  sandboxLabels,
  sessionFromContainerName,
  volumeLabels,
} from "./sandbox-labels";
import { EGRESS_NETWORK, egressFirewallProblem, ensureEgressNetwork } from "./egress-network";
import { WorkspaceQuota, formatBytes } from "./workspace-quota";

export interface DockerSandboxDriverOptions {
  /** Names this runner in labels; reconcile touches only containers carrying it. */
  runnerId: string;
  /** A ready client (remote hosts, tests); default: `new Docker({ socketPath })`, or DOCKER_HOST via dockerode. */
  docker?: Docker;
  socketPath?: string;
  /** Default `berth-sandbox:latest`. */
  image?: string;
  /** Warm containers kept ready; default 2, 0 disables the pool. */
  poolSize?: number;
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

/** A started container with its agent handshaken over the attached stdio. */
interface Attached {
  container: Docker.Container;
  containerId: string;
  containerName: string;
  volumeName: string;
  egress: boolean;
  socket: NodeJS.ReadWriteStream;
  conn: AgentConnection;
  hello: AgentHelloResult;
  createdAt: Date;
  readyAt: Date;
  stderrTail: string;
  /** Who is told when the stream ends: the pool while warm, the session once acquired. */
  onEnd: () => void;
}

interface SessionState {
  sessionId: string;
  volumeName: string;
  egress: boolean;
  status: SandboxStatus;
  attached: Attached | null;
  createdAt: Date;
  lastActivity: number | null;
  oomKills: number;
  /** The container and time of the latest OOM event: a death is an OOM only when one came with it. */
  oomSeenOn: string | null;
  lastOomAt: number | null;
  termination: SandboxTermination | null;
  starting: Promise<unknown> | null;
  /** Set when the runner itself stops the container, so the end of its stream is not read as a crash. */
  stopping: TerminationCause | null;
  /** Removal of a dead container in flight; a restart waits for it (same name). */
  removal: Promise<void> | null;
  /** The volume name was generated here and does not exist yet: create it without asking. */
  freshVolume: boolean;
  /** A claimed warm container being renamed after its session. */
  renaming: Promise<void> | null;
  inFlight: number;
  idleTimer: NodeJS.Timeout | null;
  heartbeatTimer: NodeJS.Timeout | null;
  missedBeats: number;
}

const STDERR_TAIL_BYTES = 4096;
const EXIT_WAIT_MS = 600;
/**
 * An OOM event at most this long before the agent's stream ended (or while its death is examined) explains it.
 * Per event, because Docker's State.OOMKilled stays true for the container's life once any process in it was
 * OOM-killed (on cgroup v1 and v2), so a later `kill -9` of the agent would read as an OOM too.
 */
const OOM_EXPLAINS_MS = 2_000;
/** How long a SIGKILLed agent's end waits for the engine's OOM event, which can trail the stream's end. */
const OOM_EVENT_GRACE_MS = 400;
const MISSED_BEATS_LIMIT = 3;

function isoNow(): string {
  return new Date().toISOString();
}

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function statusCode(error: unknown): number | undefined {
  return typeof error === "object" && error !== null && "statusCode" in error && typeof error.statusCode === "number"
    ? error.statusCode
    : undefined;
}

/**
 * SandboxDriver on a Docker engine through dockerode: one hardened container per session running
 * berth-agent as its command, JSON-RPC over the attached stdin/stdout, a named volume per session at
 * /workspace, a warm pool of handshaken containers, honest termination causes.
 */
export class DockerSandboxDriver extends EventEmitter<SandboxDriverEvents> implements SandboxDriver {
  readonly runnerId: string;
  readonly image: string;
  readonly limits: SandboxLimits;
  private readonly docker: Docker;
  private readonly opts: Required<
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
  private readonly sessions = new Map<string, SessionState>();
  private readonly locks = new Map<string, Promise<unknown>>();
  private readonly pool: WarmPool<Attached>;
  private readonly gate: StartGate;
  private imageId: string | null = null;
  /** Set by start() when the limit can be enforced here. */
  private quota: WorkspaceQuota | null = null;
  private readonly quotaWanted: { dir: string; sizeBytes: number } | null;
  private egressReady: Promise<void> | null = null;
  /** Warm containers' volumes between creation and joining the pool: reconcile must not reap them. */
  private readonly warmVolumesStarting = new Set<string>();
  private eventsStream: NodeJS.ReadableStream | null = null;
  private started = false;
  private closed = false;

  constructor(options: DockerSandboxDriverOptions) {
    super();
    this.runnerId = options.runnerId;
    this.image = options.image ?? "berth-sandbox:latest";
    this.limits = { ...DEFAULT_LIMITS, ...options.limits };
    this.docker = options.docker ?? new Docker(options.socketPath ? { socketPath: options.socketPath } : undefined);
    this.opts = {
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
    this.quotaWanted = options.workspaceQuota ?? null;
    this.gate = new StartGate(Math.max(1, this.opts.maxConcurrentStarts));
    this.pool = new WarmPool<Attached>({
      size: this.opts.poolSize,
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
    await this.watchEngineEvents();
    this.pool.fill();
  }

  whenPoolFull(): Promise<void> {
    return this.pool.whenFull();
  }

  async close(opts: { stopSessions?: boolean } = {}): Promise<void> {
    this.closed = true;
    const stream = this.eventsStream as (NodeJS.ReadableStream & { destroy?: () => void }) | null;
    this.eventsStream = null;
    stream?.destroy?.();
    await this.pool.drain();
    await Promise.allSettled(
      [...this.sessions.values()].map(async (s) => {
        this.clearTimers(s);
        if (!s.attached) return;
        if (opts.stopSessions) return this.stopSandbox(s, "released");
        // Detach only: StdinOnce is false, so the agent keeps running for the next runner to adopt.
        s.stopping = "released";
        s.attached.conn.fail(sandboxNotRunning(s.sessionId, "released"));
        (s.attached.socket as NodeJS.ReadWriteStream & { destroy?: () => void }).destroy?.();
      }),
    );
  }

  // ---- SandboxDriver ----

  create(sessionId: string, spec: SandboxSpec = {}): Promise<SandboxInfo> {
    return this.withLock(sessionId, async () => {
      const existing = this.sessions.get(sessionId);
      if (existing && existing.status !== "terminated") {
        throw new SandboxError({
          sessionId,
          reason: "conflict",
          message: `Session ${sessionId} already has a sandbox (${existing.status})`,
        });
      }
      const state = existing ?? this.newState(sessionId, spec.volumeName ?? this.newVolumeName(), spec.egress ?? false);
      if (!existing && !spec.volumeName) state.freshVolume = true;
      if (existing && spec.egress !== undefined) state.egress = spec.egress;
      return this.coldStart(state);
    });
  }

  acquire(sessionId: string, spec: SandboxSpec = {}): Promise<SandboxInfo> {
    return this.withLock(sessionId, async () => {
      const existing = this.sessions.get(sessionId);
      if (existing?.status === "ready" && existing.attached && !existing.attached.conn.closed) {
        this.markActive(existing);
        return this.info(existing);
      }
      if (existing) {
        if (spec.egress !== undefined) existing.egress = spec.egress;
        return this.coldStart(existing);
      }
      if (spec.volumeName) return this.coldStart(this.newState(sessionId, spec.volumeName, spec.egress ?? false));
      if (!spec.egress) {
        const warm = this.pool.take();
        if (warm) {
          if (!warm.conn.closed) return this.claimWarm(sessionId, warm);
          void this.disposeContainer(warm, true);
        }
      }
      const state = this.newState(sessionId, this.newVolumeName(), spec.egress ?? false);
      state.freshVolume = true;
      return this.coldStart(state);
    });
  }

  async call(sessionId: string, params: ToolCallParams, opts: SandboxCallOptions = {}): Promise<ToolResult> {
    const state = await this.runningState(sessionId);
    const attached = state.attached as Attached;
    state.inFlight++;
    this.markActive(state);
    try {
      const result = await attached.conn.callTool(params, {
        timeoutMs: opts.timeoutMs ?? callDeadlineMs(params, this.opts.callTimeoutMs),
        ...(opts.signal ? { signal: opts.signal } : {}),
      });
      return this.explainFullWorkspace(result);
    } catch (error) {
      // A call we gave up on must not keep running inside: ask the agent to stop it.
      if (SandboxError.isSandboxError(error) && error.reason === "timeout" && !attached.conn.closed) {
        attached.conn.abortTool(params.callId, { timeoutMs: 2_000 }).catch(() => undefined);
      }
      throw error;
    } finally {
      state.inFlight--;
      this.markActive(state);
    }
  }

  async request<T>(sessionId: string, method: string, params: unknown, schema: ResultSchema<T>, opts: SandboxCallOptions = {}): Promise<T> {
    const state = await this.runningState(sessionId);
    this.markActive(state);
    return (state.attached as Attached).conn.request(method, params, schema, {
      timeoutMs: opts.timeoutMs ?? this.opts.callTimeoutMs,
      ...(opts.signal ? { signal: opts.signal } : {}),
    });
  }

  async abort(sessionId: string, callId: string): Promise<boolean> {
    const state = await this.runningState(sessionId);
    return (state.attached as Attached).conn.abortTool(callId, { timeoutMs: this.opts.heartbeatTimeoutMs });
  }

  async ping(sessionId: string): Promise<AgentPingResult> {
    const state = await this.runningState(sessionId);
    return (state.attached as Attached).conn.ping({ timeoutMs: this.opts.heartbeatTimeoutMs });
  }

  touch(sessionId: string): void {
    const state = this.sessions.get(sessionId);
    if (state?.status === "ready") this.markActive(state);
  }

  restart(sessionId: string): Promise<SandboxInfo> {
    return this.withLock(sessionId, async () => {
      const state = this.requireState(sessionId);
      if (state.attached) await this.stopSandbox(state, "released");
      return this.coldStart(state);
    });
  }

  release(sessionId: string): Promise<void> {
    return this.withLock(sessionId, async () => {
      const state = this.sessions.get(sessionId);
      if (state?.attached) await this.stopSandbox(state, "released");
    });
  }

  destroy(sessionId: string, spec: Pick<SandboxSpec, "volumeName"> = {}): Promise<void> {
    return this.withLock(sessionId, async () => {
      const state = this.sessions.get(sessionId);
      if (state?.attached) await this.stopSandbox(state, "deleted");
      if (state?.removal) await state.removal;
      const volumeName = state?.volumeName ?? spec.volumeName;
      if (volumeName) await this.removeVolume(volumeName);
      if (state) {
        this.clearTimers(state);
        state.status = "deleted";
        this.sessions.delete(sessionId);
      }
    });
  }

  get(sessionId: string): SandboxInfo | undefined {
    const state = this.sessions.get(sessionId);
    return state ? this.info(state) : undefined;
  }

  list(): SandboxInfo[] {
    return [...this.sessions.values()].map((s) => this.info(s));
  }

  posture(sessionId: string): SandboxPosture {
    const state = this.sessions.get(sessionId);
    return postureOf({ limits: this.limits, network: state?.egress ? this.opts.egressNetwork : "none" });
  }

  async reconcile(live: Iterable<LiveSession | string>): Promise<ReconcileReport> {
    const report: ReconcileReport = { adopted: [], terminated: [], reapedContainers: [], reapedVolumes: [] };
    const liveVolumes = new Map<string, string | undefined>();
    const sessionOfVolume = new Map<string, string>();
    for (const entry of live) {
      if (typeof entry === "string") liveVolumes.set(entry, undefined);
      else liveVolumes.set(entry.sessionId, entry.volumeName);
      if (typeof entry !== "string" && entry.volumeName) sessionOfVolume.set(entry.volumeName, entry.sessionId);
    }
    const ours = new Set<string>(
      [...this.sessions.values()].flatMap((s) => (s.attached ? [s.attached.containerId] : [])),
    );
    const containers = await this.docker.listContainers({ all: true, filters: runnerFilter(this.runnerId) });
    const bySession = new Map<string, Docker.ContainerInfo[]>();
    const reap: Docker.ContainerInfo[] = [];
    for (const info of containers) {
      if (ours.has(info.Id)) continue; // attached by this very driver (pool or session)
      const label = info.Labels[SandboxLabel.Session];
      // A warm container claimed just before a crash may still carry its pool name: its volume tells.
      const sessionId =
        label && label !== POOL_SESSION
          ? label
          : (sessionFromContainerName(info.Names[0] ?? "") ??
            sessionOfVolume.get(info.Labels[SandboxLabel.Volume] ?? "") ??
            null);
      if (sessionId === null || !liveVolumes.has(sessionId) || this.sessions.get(sessionId)?.attached) {
        reap.push(info);
        continue;
      }
      const list = bySession.get(sessionId) ?? [];
      list.push(info);
      bySession.set(sessionId, list);
    }

    for (const [sessionId, list] of bySession) {
      list.sort((a, b) => b.Created - a.Created);
      const [newest, ...older] = list;
      reap.push(...older);
      if (!newest) continue;
      const volumeName = newest.Labels[SandboxLabel.Volume] ?? liveVolumes.get(sessionId);
      if (!volumeName) {
        reap.push(newest);
        continue;
      }
      if (!liveVolumes.get(sessionId)) liveVolumes.set(sessionId, volumeName);
      const outcome = await this.withLock(sessionId, () => this.adopt(sessionId, newest, volumeName));
      (outcome === "adopted" ? report.adopted : report.terminated).push(sessionId);
    }

    for (const info of reap) {
      await this.docker
        .getContainer(info.Id)
        .remove({ force: true })
        .then(() => report.reapedContainers.push(info.Id))
        .catch((error: unknown) =>
          this.warn(null, `could not reap container ${info.Id}: ${errorMessage(error)}`, error),
        );
    }

    // Volumes: only prune when every live session's workspace is known, so no live workspace is lost.
    const keep = new Set<string>();
    let allKnown = true;
    for (const [sessionId, volumeName] of liveVolumes) {
      const name = volumeName ?? this.sessions.get(sessionId)?.volumeName;
      if (name) keep.add(name);
      else allKnown = false;
    }
    for (const s of this.sessions.values()) keep.add(s.volumeName);
    for (const item of this.poolItems()) keep.add(item.volumeName);
    for (const name of this.warmVolumesStarting) keep.add(name);
    if (!allKnown) {
      this.warn(null, "reconcile kept all volumes: some live sessions were given without a volumeName");
      return report;
    }
    const { Volumes } = await this.docker.listVolumes({ filters: runnerFilter(this.runnerId) });
    for (const volume of Volumes ?? []) {
      if (keep.has(volume.Name)) continue;
      if (await this.removeVolume(volume.Name)) report.reapedVolumes.push(volume.Name);
    }
    // Workspace images whose volume is gone (a crash between the two removals) or was never made.
    for (const name of this.quota ? await this.quota.list() : []) {
      if (keep.has(name) || report.reapedVolumes.includes(name)) continue;
      await this.quota
        ?.remove(name)
        .then(() => report.reapedVolumes.push(name))
        .catch((error: unknown) => this.warn(null, `could not reap workspace image ${name}: ${errorMessage(error)}`, error));
    }
    return report;
  }

  // ---- internals: disk and network ----

  /** Decides once whether workspaces get their size limit here, and says so when they cannot (never silently). */
  private async prepareDiskAndNetwork(): Promise<void> {
    // dockerode's modem has a socketPath for a local engine, a host for tcp:// and ssh://.
    const localEngine = Boolean((this.docker.modem as { socketPath?: unknown }).socketPath);
    const wanted = this.quotaWanted;
    if (wanted && wanted.sizeBytes > 0) {
      const reason = await WorkspaceQuota.unavailableReason({ localEngine });
      if (reason)
        this.warn(
          null,
          `workspace size limit ${formatBytes(wanted.sizeBytes)} (BERTH_WORKSPACE_SIZE) is not enforced: ${reason}; workspaces can fill the host's disk`,
        );
      else this.quota = new WorkspaceQuota(wanted);
    }
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

  /**
   * ENOSPC in a limited workspace is the limit, not a fault: a failed write says which limit and is recorded as
   * `workspace_full`; a shell's own "No space left on device" stays in its stderr and the trace notes the limit.
   */
  private explainFullWorkspace(result: ToolResult): ToolResult {
    if (!this.quota) return result;
    const limit = formatBytes(this.quota.sizeBytes);
    if (!result.ok && result.error && /ENOSPC|no space left on device/i.test(result.error.message)) {
      const message = `workspace is full (limit ${limit}): ${result.error.message}`;
      return {
        ...result,
        output: result.output === result.error.message ? message : `${message}\n${result.output}`,
        error: { code: "workspace_full", message },
      };
    }
    // bash exec's stderr, run_script's stderrTail.
    const stderr = result.details?.["stderr"] ?? result.details?.["stderrTail"];
    if (typeof stderr === "string" && /no space left on device/i.test(stderr))
      return { ...result, trace: { ...result.trace, noSpace: `no space left on device (workspace limit ${limit})` } };
    return result;
  }

  // ---- internals: sessions ----

  private newState(sessionId: string, volumeName: string, egress: boolean): SessionState {
    const state: SessionState = {
      sessionId,
      volumeName,
      egress,
      status: "starting",
      attached: null,
      createdAt: new Date(),
      lastActivity: null,
      oomKills: 0,
      oomSeenOn: null,
      lastOomAt: null,
      termination: null,
      starting: null,
      stopping: null,
      removal: null,
      renaming: null,
      freshVolume: false,
      inFlight: 0,
      idleTimer: null,
      heartbeatTimer: null,
      missedBeats: 0,
    };
    this.sessions.set(sessionId, state);
    return state;
  }

  private newVolumeName(): string {
    return `berth-ws-${randomBytes(8).toString("hex")}`;
  }

  private requireState(sessionId: string): SessionState {
    const state = this.sessions.get(sessionId);
    if (!state) {
      throw new SandboxError({
        sessionId,
        reason: "not_found",
        message: `No sandbox for session ${sessionId}; acquire one first`,
      });
    }
    return state;
  }

  /** The session's state with a live agent, or the error a caller should see. */
  private async runningState(sessionId: string): Promise<SessionState> {
    const state = this.requireState(sessionId);
    if (state.status === "starting" && state.starting) await state.starting.catch(() => undefined);
    if (state.status === "ready" && state.attached && !state.attached.conn.closed) return state;
    const t = state.termination;
    throw sandboxNotRunning(sessionId, t?.cause ?? "exited", t?.exitCode ?? null);
  }

  private async coldStart(state: SessionState): Promise<SandboxInfo> {
    state.status = "starting";
    state.stopping = null;
    state.oomSeenOn = null;
    state.lastOomAt = null;
    const starting = (async () => {
      if (state.removal) await state.removal;
      await this.ensureVolume(state.volumeName, state.freshVolume);
      state.freshVolume = false;
      if (state.egress) await this.ensureEgress();
      const labels = sandboxLabels(this.runnerId, state.sessionId, state.volumeName, state.egress);
      return this.gate.run(() =>
        this.startContainer(containerNameFor(state.sessionId), labels, state.volumeName, state.egress, state.sessionId),
      );
    })();
    state.starting = starting;
    try {
      const attached = await starting;
      this.bindToSession(state, attached);
      return this.info(state);
    } catch (error) {
      state.status = "terminated";
      const cause: TerminationCause =
        SandboxError.isSandboxError(error) && error.reason !== "docker" ? "handshake_failed" : "exited";
      this.recordTermination(state, cause, null, errorMessage(error));
      throw error;
    } finally {
      state.starting = null;
    }
  }

  /**
   * Hands a warm sandbox to the session at once. Labels are immutable, so the session is written into the
   * container's name in the background; until that lands, a restarted runner still finds the session by
   * its volume name (persisted by the runner from SandboxInfo), which the container's labels carry.
   */
  private claimWarm(sessionId: string, warm: Attached): SandboxInfo {
    const state = this.newState(sessionId, warm.volumeName, false);
    this.bindToSession(state, warm);
    const name = containerNameFor(sessionId);
    // Started on the next turn: building the engine request is the slowest part of a warm claim.
    state.renaming = new Promise<void>((resolve) => setImmediate(resolve))
      .then(() => warm.container.rename({ name }))
      .then(() => {
        warm.containerName = name;
      })
      .catch((error: unknown) => {
        if (state.attached === warm)
          this.warn(sessionId, `could not rename warm container to ${name}: ${errorMessage(error)}`, error);
      })
      .finally(() => {
        state.renaming = null;
      });
    return this.info(state);
  }

  private bindToSession(state: SessionState, attached: Attached): void {
    const { sessionId } = state;
    state.attached = attached;
    state.status = "ready";
    state.termination = null;
    state.missedBeats = 0;
    attached.conn.on("output", (n) => this.emit("output", { ...n, sessionId }));
    attached.conn.on("process.status", (n) => this.emit("process.status", { ...n, sessionId }));
    attached.conn.on("protocol-error", (m) => this.warn(sessionId, `agent protocol fault: ${m}`));
    attached.onEnd = () => void this.onSandboxEnd(state, attached);
    if (attached.conn.closed) attached.onEnd();
    this.markActive(state);
    this.startHeartbeat(state);
    this.emit("ready", this.info(state));
  }

  /** The attached stream ended: find out why (exit code, OOM) and fail every pending call with it. */
  private async onSandboxEnd(state: SessionState, attached: Attached): Promise<void> {
    if (state.attached !== attached || state.stopping) return;
    const container = attached.container;
    const endedAt = Date.now();
    const oomNow = () =>
      state.oomSeenOn === attached.containerId && state.lastOomAt !== null && state.lastOomAt >= endedAt - OOM_EXPLAINS_MS;
    await Promise.race([container.wait({ condition: "not-running" }).catch(() => undefined), delay(EXIT_WAIT_MS)]);
    let cause: TerminationCause = "exited";
    let exitCode: number | null = null;
    try {
      const inspect = await container.inspect();
      exitCode = inspect.State.Running ? null : inspect.State.ExitCode;
      // 137: killed by SIGKILL, by the OOM killer or by anyone else; the event says which.
      if (exitCode === 137 && !oomNow()) await waitFor(oomNow, OOM_EVENT_GRACE_MS);
      // OOMKilled alone counts only when no OOM event was ever seen for this container (the event stream was down).
      const oomUnseen = inspect.State.OOMKilled && state.oomSeenOn !== attached.containerId;
      if (oomNow() || oomUnseen) cause = "oom";
      if (inspect.State.Running) cause = "unresponsive"; // stdout closed but the container lives on
    } catch (error) {
      if (oomNow()) cause = "oom";
      this.warn(state.sessionId, `could not inspect the dead container: ${errorMessage(error)}`, error);
    }
    if (state.attached !== attached || state.stopping) return;
    const error = sandboxNotRunning(state.sessionId, cause, exitCode);
    attached.conn.fail(error);
    this.detach(state);
    state.removal = this.disposeAfterRename(state, attached);
    this.recordTermination(state, cause, exitCode, error.message);
  }

  /** The runner ends a sandbox on purpose (idle, release, delete, unresponsive): the cause is ours. */
  private async stopSandbox(state: SessionState, cause: TerminationCause): Promise<void> {
    const attached = state.attached;
    if (!attached) return;
    state.stopping = cause;
    const error = sandboxNotRunning(state.sessionId, cause);
    attached.conn.fail(error);
    this.detach(state);
    state.removal = this.disposeAfterRename(state, attached);
    await state.removal;
    this.recordTermination(state, cause, null, error.message);
  }

  private async disposeAfterRename(state: SessionState, attached: Attached): Promise<void> {
    if (state.renaming) await state.renaming;
    await this.disposeContainer(attached, false);
  }

  private detach(state: SessionState): void {
    this.clearTimers(state);
    state.attached = null;
    state.status = "terminated";
  }

  private recordTermination(
    state: SessionState,
    cause: TerminationCause,
    exitCode: number | null,
    message: string,
  ): void {
    state.status = "terminated";
    state.termination = { sessionId: state.sessionId, cause, exitCode, message, at: isoNow() };
    this.emit("terminated", state.termination);
  }

  private async adopt(
    sessionId: string,
    info: Docker.ContainerInfo,
    volumeName: string,
  ): Promise<"adopted" | "terminated"> {
    const state =
      this.sessions.get(sessionId) ?? this.newState(sessionId, volumeName, info.Labels[SandboxLabel.Egress] === "1");
    state.volumeName = volumeName;
    const container = this.docker.getContainer(info.Id);
    if (info.State === "running") {
      try {
        const name = (info.Names[0] ?? "").replace(/^\//, "");
        const attached = await this.attachAndHello(container, info.Id, name, volumeName, state.egress, sessionId, true);
        this.bindToSession(state, attached);
        if (sessionFromContainerName(name) !== sessionId) {
          // Claimed from a pool just before the crash: give it its session's name now.
          await container
            .rename({ name: containerNameFor(sessionId) })
            .catch((error: unknown) =>
              this.warn(sessionId, `could not rename adopted container: ${errorMessage(error)}`, error),
            );
        }
        return "adopted";
      } catch (error) {
        await container.remove({ force: true }).catch(() => undefined);
        this.recordTermination(state, "unresponsive", null, `could not adopt sandbox: ${errorMessage(error)}`);
        return "terminated";
      }
    }
    const inspect = await container.inspect().catch(() => null);
    await container.remove({ force: true }).catch(() => undefined);
    const cause: TerminationCause = inspect?.State.OOMKilled ? "oom" : "exited";
    const exitCode = inspect?.State.ExitCode ?? null;
    this.recordTermination(state, cause, exitCode, sandboxNotRunning(sessionId, cause, exitCode).message);
    return "terminated";
  }

  // ---- internals: containers ----

  private async createWarm(): Promise<Attached> {
    const volumeName = this.newVolumeName();
    this.warmVolumesStarting.add(volumeName);
    try {
      return await this.createWarmOn(volumeName);
    } finally {
      this.warmVolumesStarting.delete(volumeName);
    }
  }

  private async createWarmOn(volumeName: string): Promise<Attached> {
    await this.ensureVolume(volumeName, true);
    const name = `berth-pool-${randomBytes(6).toString("hex")}`;
    try {
      const labels = sandboxLabels(this.runnerId, POOL_SESSION, volumeName, false);
      const attached = await this.gate.run(() => this.startContainer(name, labels, volumeName, false, POOL_SESSION), {
        background: true,
      });
      attached.onEnd = () => this.pool.remove(attached);
      if (attached.conn.closed) attached.onEnd();
      return attached;
    } catch (error) {
      await this.removeVolume(volumeName);
      throw error;
    }
  }

  private async startContainer(
    name: string,
    labels: Record<string, string>,
    volumeName: string,
    egress: boolean,
    sessionId: string,
  ): Promise<Attached> {
    const network = egress ? this.opts.egressNetwork : "none";
    let container: Docker.Container;
    try {
      container = await this.docker.createContainer({
        name,
        Image: this.image,
        Labels: labels,
        User: SANDBOX_USER,
        WorkingDir: WORKSPACE_DIR,
        Hostname: "berth",
        // The agent starts as root and needs to know whom to run workspace code as (the image says so too).
        Env: [`HOME=${HOME_DIR}`, `BERTH_WORKSPACE_USER=${WORKSPACE_USER}`],
        // The agent speaks over stdin/stdout; StdinOnce false keeps stdin open across re-attaches.
        OpenStdin: true,
        AttachStdin: true,
        AttachStdout: true,
        AttachStderr: true,
        StdinOnce: false,
        Tty: false,
        NetworkDisabled: !egress,
        HostConfig: hardenedHostConfig({ volumeName, limits: this.limits, network }),
      });
    } catch (error) {
      throw new SandboxError({
        sessionId,
        reason: "docker",
        message: `Docker could not create the sandbox for session ${sessionId}: ${errorMessage(error)}`,
        cause: error,
      });
    }
    try {
      return await this.attachAndHello(container, container.id, name, volumeName, egress, sessionId, false);
    } catch (error) {
      await container.remove({ force: true }).catch(() => undefined);
      throw error;
    }
  }

  /** Attach must come before start, or the agent's first bytes are lost; adoption attaches to a running one. */
  private async attachAndHello(
    container: Docker.Container,
    containerId: string,
    containerName: string,
    volumeName: string,
    egress: boolean,
    sessionId: string,
    running: boolean,
  ): Promise<Attached> {
    const socket = (await container.attach({
      stream: true,
      stdin: true,
      stdout: true,
      stderr: true,
      hijack: true,
    })) as NodeJS.ReadWriteStream;
    const stdout = new PassThrough();
    const stderr = new PassThrough();
    this.docker.modem.demuxStream(socket, stdout, stderr);
    const endAll = () => {
      stdout.end();
      stderr.end();
    };
    socket.once("end", endAll);
    socket.once("close", endAll);
    socket.on("error", endAll);
    const conn = new AgentConnection({ sessionId, stdin: socket, stdout, defaultTimeoutMs: this.opts.callTimeoutMs });
    const attached: Attached = {
      container,
      containerId,
      containerName,
      volumeName,
      egress,
      socket,
      conn,
      hello: undefined as unknown as AgentHelloResult,
      createdAt: new Date(),
      readyAt: new Date(),
      stderrTail: "",
      onEnd: () => undefined,
    };
    stderr.on("data", (chunk: Buffer) => {
      attached.stderrTail = (attached.stderrTail + chunk.toString("utf8")).slice(-STDERR_TAIL_BYTES);
    });
    conn.on("end", () => attached.onEnd());
    try {
      if (running)
        socket.write("\n"); // ends any half line a previous runner left in the agent's stdin
      else await container.start();
      attached.hello = await conn.hello(this.opts.runnerVersion, { timeoutMs: this.opts.handshakeTimeoutMs });
      attached.readyAt = new Date();
      return attached;
    } catch (error) {
      conn.fail(error instanceof Error ? error : new Error(String(error)));
      (socket as NodeJS.ReadWriteStream & { destroy?: () => void }).destroy?.();
      const tail = attached.stderrTail.trim();
      const reason = SandboxError.isSandboxError(error) ? error.reason : "docker";
      throw new SandboxError({
        sessionId,
        reason: reason === "not_running" || reason === "timeout" ? "protocol" : reason,
        message: `Sandbox for session ${sessionId} failed its handshake: ${errorMessage(error)}${tail ? `; agent stderr: ${boundLine(tail, STDERR_TAIL_BYTES)}` : ""}`,
        cause: error,
      });
    }
  }

  private async disposeContainer(attached: Attached, withVolume: boolean): Promise<void> {
    attached.onEnd = () => undefined;
    attached.conn.fail(new Error("sandbox disposed"));
    await attached.container.remove({ force: true }).catch((error: unknown) => {
      if (statusCode(error) !== 404)
        this.warn(null, `could not remove container ${attached.containerId}: ${errorMessage(error)}`, error);
    });
    (attached.socket as NodeJS.ReadWriteStream & { destroy?: () => void }).destroy?.();
    if (withVolume) await this.removeVolume(attached.volumeName);
  }

  private async ensureVolume(name: string, fresh = false): Promise<void> {
    if (!fresh) {
      const volume = await this.docker
        .getVolume(name)
        .inspect()
        .catch(() => null);
      if (volume) {
        // A size-limited workspace: its image is mounted again (after a reboot, say) before Docker binds it.
        if (this.quota && volume.Options?.["device"] === this.quota.mountPath(name)) await this.quota.ensure(name);
        return;
      }
    }
    if (!this.quota) {
      await this.docker.createVolume({ Name: name, Labels: volumeLabels(this.runnerId) });
      return;
    }
    await this.quota.ensure(name);
    await this.docker.createVolume({
      Name: name,
      Driver: "local",
      DriverOpts: this.quota.volumeOptions(name),
      Labels: volumeLabels(this.runnerId),
    });
  }

  private async removeVolume(name: string): Promise<boolean> {
    let removed = false;
    try {
      await this.docker.getVolume(name).remove();
      removed = true;
    } catch (error) {
      if (statusCode(error) !== 404) {
        this.warn(null, `could not remove volume ${name}: ${errorMessage(error)}`, error);
        return false;
      }
    }
    // The volume only bound the image's mount: unmount it and give the disk back.
    await this.quota
      ?.remove(name)
      .catch((error: unknown) =>
        this.warn(null, `could not remove the workspace image of ${name}: ${errorMessage(error)}`, error),
      );
    return removed;
  }

  private poolItems(): Attached[] {
    return (this.pool as unknown as { items: Attached[] }).items;
  }

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

  /** OOM kills of a process inside a surviving container show only as engine events. */
  private async watchEngineEvents(): Promise<void> {
    const filters = { type: ["container" as const], event: ["oom"], ...runnerFilter(this.runnerId) };
    const stream = await this.docker.getEvents({ filters });
    this.eventsStream = stream;
    let buffer = "";
    stream.on("data", (chunk: Buffer) => {
      buffer += chunk.toString("utf8");
      let nl = buffer.indexOf("\n");
      while (nl !== -1) {
        const line = buffer.slice(0, nl).trim();
        buffer = buffer.slice(nl + 1);
        if (line) this.onEngineEvent(line);
        nl = buffer.indexOf("\n");
      }
    });
    stream.on("error", () => undefined);
    stream.on("end", () => {
      if (this.closed || this.eventsStream !== stream) return;
      // The engine restarted or the socket dropped: watch again after a pause.
      setTimeout(
        () =>
          void this.watchEngineEvents().catch((error: unknown) =>
            this.warn(null, `engine events lost: ${errorMessage(error)}`, error),
          ),
        1_000,
      ).unref();
    });
  }

  private onEngineEvent(line: string): void {
    let event: { status?: string; Action?: string; id?: string; Actor?: { ID?: string } };
    try {
      event = JSON.parse(line) as typeof event;
    } catch {
      return;
    }
    const id = event.Actor?.ID ?? event.id;
    if ((event.Action ?? event.status) !== "oom" || !id) return;
    for (const state of this.sessions.values()) {
      if (state.attached?.containerId !== id) continue;
      state.oomKills++;
      state.oomSeenOn = id;
      state.lastOomAt = Date.now();
      this.emit("oom", { sessionId: state.sessionId, at: isoNow() });
    }
  }

  // ---- internals: timers ----

  private markActive(state: SessionState): void {
    state.lastActivity = Date.now();
    // A terminated sandbox has nothing left to stop (a call's finally runs after its death too).
    if (this.opts.idleTimeoutMs <= 0 || state.status !== "ready") return;
    if (state.idleTimer) clearTimeout(state.idleTimer);
    state.idleTimer = setTimeout(() => {
      state.idleTimer = null;
      if (state.inFlight > 0) return this.markActive(state);
      void this.withLock(state.sessionId, () => this.stopSandbox(state, "idle_timeout")).catch((error: unknown) =>
        this.warn(state.sessionId, `idle stop failed: ${errorMessage(error)}`, error),
      );
    }, this.opts.idleTimeoutMs);
    state.idleTimer.unref();
  }

  private startHeartbeat(state: SessionState): void {
    if (this.opts.heartbeatIntervalMs <= 0) return;
    if (state.heartbeatTimer) clearInterval(state.heartbeatTimer);
    state.heartbeatTimer = setInterval(() => {
      const attached = state.attached;
      if (!attached || attached.conn.closed) return;
      const sentAt = Date.now();
      attached.conn.ping({ timeoutMs: this.opts.heartbeatTimeoutMs }).then(
        (pong) => {
          state.missedBeats = 0;
          // A dev server or a long job started with bash action=start is work, even with no calls coming in.
          if (pong.runningProcesses > 0) this.markActive(state);
        },
        (error: unknown) => {
          if (attached.conn.closed || state.attached !== attached) return;
          // The pong may sit behind megabytes of output on the one stdout pipe: data since the ping is a beat.
          if (attached.conn.lastDataAt >= sentAt) {
            state.missedBeats = 0;
            return;
          }
          state.missedBeats++;
          this.warn(
            state.sessionId,
            `heartbeat missed (${state.missedBeats}/${MISSED_BEATS_LIMIT}): ${errorMessage(error)}`,
            error,
          );
          if (state.missedBeats < MISSED_BEATS_LIMIT) return;
          void this.withLock(state.sessionId, () => this.stopSandbox(state, "unresponsive")).catch(() => undefined);
        },
      );
    }, this.opts.heartbeatIntervalMs);
    state.heartbeatTimer.unref();
  }

  private clearTimers(state: SessionState): void {
    if (state.idleTimer) clearTimeout(state.idleTimer);
    if (state.heartbeatTimer) clearInterval(state.heartbeatTimer);
    state.idleTimer = null;
    state.heartbeatTimer = null;
  }

  // ---- internals: misc ----

  /** Lifecycle operations on one session run one at a time (acquire racing destroy, idle racing restart). */
  private withLock<T>(sessionId: string, fn: () => Promise<T>): Promise<T> {
    const previous = this.locks.get(sessionId) ?? Promise.resolve();
    const next = previous.then(fn, fn);
    const settled = next.then(
      () => undefined,
      () => undefined,
    );
    this.locks.set(sessionId, settled);
    void settled.then(() => {
      if (this.locks.get(sessionId) === settled) this.locks.delete(sessionId);
    });
    return next;
  }

  private info(state: SessionState): SandboxInfo {
    const attached = state.attached;
    return {
      sessionId: state.sessionId,
      status: state.status,
      containerId: attached?.containerId ?? null,
      volumeName: state.volumeName,
      image: this.image,
      imageId: this.imageId,
      egress: state.egress,
      agentVersion: attached?.hello.agentVersion ?? null,
      createdAt: state.createdAt.toISOString(),
      readyAt: attached?.readyAt.toISOString() ?? null,
      lastActivityAt: state.lastActivity === null ? null : new Date(state.lastActivity).toISOString(),
      oomKills: state.oomKills,
      termination: state.termination,
    };
  }

  private warn(sessionId: string | null, message: string, error?: unknown): void {
    this.emit("warning", { sessionId, message, ...(error === undefined ? {} : { error }) });
  }
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Polls `done` every 25 ms until it holds or `ms` pass. */
async function waitFor(done: () => boolean, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  while (!done() && Date.now() < deadline) await delay(25);
}
