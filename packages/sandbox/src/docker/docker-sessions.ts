import type { EventEmitter } from "node:events";
import type Docker from "dockerode";
import type { SandboxInfo, TerminationCause } from "@berth/protocol";
import type { AdoptOutcome, LiveSession, ReconcileReport, SandboxDriverEvents } from "../driver";
import { emitWarning } from "../driver/emit-warning";
import { Liveness, type LivenessOptions } from "../driver/liveness";
import { SessionLock } from "../driver/session-lock";
import { type SessionState, newSessionState, sandboxInfoOf } from "../driver/session-state";
import { SandboxError, sandboxNotRunning } from "../errors";
import type { StartGate } from "../start-gate";
import type { ContainerLauncher, DockerAttached } from "./container-launcher";
import { explainContainerEnd, inspectDeadContainer } from "./container-end";
import { errorMessage } from "./docker-errors";
import { type ContainerDescription, planReconcile, volumesToKeep } from "./reconcile-plan";
import {
  SandboxLabel,
  containerNameFor,
  runnerFilter,
  sandboxLabels,
  sessionFromContainerName,
} from "./sandbox-labels";
import type { WorkspaceVolumes } from "./workspace-volumes";

export type DockerSession = SessionState<DockerAttached>;

export interface DockerSessionsOptions {
  runnerId: string;
  docker: Docker;
  launcher: ContainerLauncher;
  volumes: WorkspaceVolumes;
  gate: StartGate;
  liveness: Pick<LivenessOptions, "idleTimeoutMs" | "heartbeatIntervalMs" | "heartbeatTimeoutMs">;
  /** The egress network exists (created on first use). */
  ensureEgress: () => Promise<void>;
  image: () => { image: string; imageId: string | null };
  /** The driver: ready, terminated, oom, output, process.status and warning are emitted on it. */
  events: EventEmitter<SandboxDriverEvents>;
}

function isoNow(): string {
  return new Date().toISOString();
}

/**
 * The sessions of a DockerSandboxDriver and their lifecycle: cold starts, warm claims, adoption after a restart,
 * deaths explained and stops on purpose. Every lifecycle step on a session runs under its lock.
 */
export class DockerSessions {
  readonly states = new Map<string, DockerSession>();
  readonly locks = new SessionLock();
  readonly liveness: Liveness<DockerSession>;

  constructor(private readonly opts: DockerSessionsOptions) {
    this.liveness = new Liveness<DockerSession>({
      ...opts.liveness,
      onIdle: (state) =>
        void this.locks
          .run(state.sessionId, () => this.stop(state, "idle_timeout"))
          .catch((error: unknown) => this.warn(state.sessionId, `idle stop failed: ${errorMessage(error)}`, error)),
      onUnresponsive: (state) =>
        void this.locks.run(state.sessionId, () => this.stop(state, "unresponsive")).catch(() => undefined),
      warn: (sessionId, message, error) => this.warn(sessionId, message, error),
    });
  }

  newState(sessionId: string, volumeName: string, egress: boolean): DockerSession {
    const state = newSessionState<DockerAttached>(sessionId, volumeName, egress);
    this.states.set(sessionId, state);
    return state;
  }

  info(state: DockerSession): SandboxInfo {
    return sandboxInfoOf(state, this.opts.image());
  }

  async coldStart(state: DockerSession): Promise<SandboxInfo> {
    state.status = "starting";
    state.stopping = null;
    state.oomSeenOn = null;
    state.lastOomAt = null;
    const starting = (async () => {
      if (state.removal) await state.removal;
      await this.opts.volumes.ensure(state.volumeName, state.freshVolume);
      state.freshVolume = false;
      if (state.egress) await this.opts.ensureEgress();
      const { sessionId, volumeName, egress } = state;
      const labels = sandboxLabels(this.opts.runnerId, sessionId, volumeName, egress);
      const spec = { name: containerNameFor(sessionId), labels, volumeName, egress, sessionId };
      return this.opts.gate.run(() => this.opts.launcher.start(spec));
    })();
    state.starting = starting;
    try {
      const attached = await starting;
      this.bind(state, attached);
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
  claimWarm(sessionId: string, warm: DockerAttached): SandboxInfo {
    const state = this.newState(sessionId, warm.volumeName, false);
    this.bind(state, warm);
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

  /** The runner ends a sandbox on purpose (idle, release, delete, unresponsive): the cause is ours. */
  async stop(state: DockerSession, cause: TerminationCause): Promise<void> {
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

  /** The engine reported an OOM kill in a container: count it on its session (the sandbox may live on). */
  onOom(containerId: string): void {
    for (const state of this.states.values()) {
      if (state.attached?.containerId !== containerId) continue;
      state.oomKills++;
      state.oomSeenOn = containerId;
      state.lastOomAt = Date.now();
      this.opts.events.emit("oom", { sessionId: state.sessionId, at: isoNow() });
    }
  }

  /** Adopts live sessions' containers and reaps the rest (planReconcile decides which is which). */
  async reconcile(live: Iterable<LiveSession | string>, alsoKeep: () => Iterable<string>): Promise<ReconcileReport> {
    const { docker, volumes, runnerId } = this.opts;
    const report: ReconcileReport = { adopted: [], terminated: [], reapedContainers: [], reapedVolumes: [] };
    const attached = [...this.states.values()].flatMap((s) => (s.attached ? [s.attached] : []));
    const plan = planReconcile({
      containers: await docker.listContainers({ all: true, filters: runnerFilter(runnerId) }),
      live,
      attachedContainers: new Set(attached.map((a) => a.containerId)),
      attachedSessions: new Set([...this.states.values()].filter((s) => s.attached).map((s) => s.sessionId)),
    });
    for (const { sessionId, container, volumeName } of plan.adopt) {
      const outcome = await this.locks.run(sessionId, () => this.adopt(sessionId, container, volumeName));
      (outcome === "adopted" ? report.adopted : report.terminated).push(sessionId);
    }
    for (const info of plan.reap) {
      await docker
        .getContainer(info.Id)
        .remove({ force: true })
        .then(() => report.reapedContainers.push(info.Id))
        .catch((error: unknown) =>
          this.warn(null, `could not reap container ${info.Id}: ${errorMessage(error)}`, error),
        );
    }

    const sessionVolumes = [...this.states.values()].map((s) => s.volumeName);
    const { keep, allKnown } = volumesToKeep(plan.liveVolumes, (id) => this.states.get(id)?.volumeName, [
      ...sessionVolumes,
      ...alsoKeep(),
    ]);
    if (!allKnown) {
      this.warn(null, "reconcile kept all volumes: some live sessions were given without a volumeName");
      return report;
    }
    for (const name of await volumes.list()) {
      if (keep.has(name)) continue;
      if (await volumes.remove(name)) report.reapedVolumes.push(name);
    }
    // Workspace images whose volume is gone (a crash between the two removals) or was never made.
    for (const name of await volumes.listImages()) {
      if (keep.has(name) || report.reapedVolumes.includes(name)) continue;
      await volumes
        .removeImage(name)
        .then(() => report.reapedVolumes.push(name))
        .catch((error: unknown) =>
          this.warn(null, `could not reap workspace image ${name}: ${errorMessage(error)}`, error),
        );
    }
    return report;
  }

  /**
   * A failover (the database gave this runner the session by compare-and-set): the session's container on this
   * engine, whichever runner labelled it, found by its name, its session label or its workspace volume. No other
   * container is touched, and an older duplicate is left to the runner that labelled it. Run under the session's lock.
   */
  async adoptFrom(sessionId: string, volumeName: string | undefined): Promise<AdoptOutcome> {
    if (this.states.get(sessionId)?.attached) return "adopted";
    const { docker } = this.opts;
    const managed = `${SandboxLabel.Managed}=true`;
    const byLabel = (label: string) => docker.listContainers({ all: true, filters: { label: [managed, label] } });
    const lists = await Promise.all([
      docker.listContainers({ all: true, filters: { label: [managed], name: [`^/${containerNameFor(sessionId)}$`] } }),
      byLabel(`${SandboxLabel.Session}=${sessionId}`),
      ...(volumeName ? [byLabel(`${SandboxLabel.Volume}=${volumeName}`)] : []),
    ]);
    const attached = [...this.states.values()].flatMap((s) => (s.attached ? [s.attached.containerId] : []));
    const plan = planReconcile({
      containers: [...new Map(lists.flat().map((info) => [info.Id, info])).values()],
      live: [{ sessionId, ...(volumeName ? { volumeName } : {}) }],
      attachedContainers: new Set(attached),
      attachedSessions: new Set(),
    });
    const found = plan.adopt[0];
    return found ? this.adopt(sessionId, found.container, found.volumeName) : "missing";
  }

  private bind(state: DockerSession, attached: DockerAttached): void {
    const { sessionId } = state;
    const { events } = this.opts;
    state.attached = attached;
    state.status = "ready";
    state.termination = null;
    state.missedBeats = 0;
    attached.conn.on("output", (n) => events.emit("output", { ...n, sessionId }));
    attached.conn.on("process.status", (n) => events.emit("process.status", { ...n, sessionId }));
    attached.conn.on("protocol-error", (m) => this.warn(sessionId, `agent protocol fault: ${m}`));
    attached.onEnd = () => void this.onSandboxEnd(state, attached);
    if (attached.conn.closed) attached.onEnd();
    this.liveness.markActive(state);
    this.liveness.startHeartbeat(state);
    events.emit("ready", this.info(state));
  }

  /** The attached stream ended: find out why (exit code, OOM) and fail every pending call with it. */
  private async onSandboxEnd(state: DockerSession, attached: DockerAttached): Promise<void> {
    if (state.attached !== attached || state.stopping) return;
    const { cause, exitCode } = await explainContainerEnd(attached.container, attached.containerId, state, (m, e) =>
      this.warn(state.sessionId, m, e),
    );
    if (state.attached !== attached || state.stopping) return;
    const error = sandboxNotRunning(state.sessionId, cause, exitCode);
    attached.conn.fail(error);
    this.detach(state);
    state.removal = this.disposeAfterRename(state, attached);
    this.recordTermination(state, cause, exitCode, error.message);
  }

  private async disposeAfterRename(state: DockerSession, attached: DockerAttached): Promise<void> {
    if (state.renaming) await state.renaming;
    await this.opts.launcher.dispose(attached);
  }

  private detach(state: DockerSession): void {
    this.liveness.clearTimers(state);
    state.attached = null;
    state.status = "terminated";
  }

  private recordTermination(
    state: DockerSession,
    cause: TerminationCause,
    exitCode: number | null,
    message: string,
  ): void {
    state.status = "terminated";
    state.termination = { sessionId: state.sessionId, cause, exitCode, message, at: isoNow() };
    this.opts.events.emit("terminated", state.termination);
  }

  private async adopt(
    sessionId: string,
    info: ContainerDescription,
    volumeName: string,
  ): Promise<"adopted" | "terminated"> {
    const state =
      this.states.get(sessionId) ?? this.newState(sessionId, volumeName, info.Labels[SandboxLabel.Egress] === "1");
    state.volumeName = volumeName;
    const container = this.opts.docker.getContainer(info.Id);
    if (info.State === "running") {
      try {
        const containerName = (info.Names[0] ?? "").replace(/^\//, "");
        const spec = { container, containerId: info.Id, containerName, volumeName, egress: state.egress, sessionId };
        this.bind(state, await this.opts.launcher.adopt(spec));
        if (sessionFromContainerName(containerName) !== sessionId) {
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
    const { cause, exitCode } = await inspectDeadContainer(container);
    await container.remove({ force: true }).catch(() => undefined);
    this.recordTermination(state, cause, exitCode, sandboxNotRunning(sessionId, cause, exitCode).message);
    return "terminated";
  }

  private warn(sessionId: string | null, message: string, error?: unknown): void {
    emitWarning(this.opts.events, sessionId, message, error);
  }
}
