import { EventEmitter } from "node:events";
import type { AgentPingResult, SandboxInfo, SandboxPosture, ToolCallParams, ToolResult } from "@berth/protocol";
import type { ResultSchema } from "../agent-connection";
import type {
  AdoptOutcome,
  LiveSession,
  ReconcileReport,
  SandboxCallOptions,
  SandboxDriver,
  SandboxDriverEventName,
  SandboxDriverEvents,
  SandboxSpec,
} from "../driver";
import { SandboxError } from "../errors";
import { pickHost } from "./pick-host";

/** One engine behind the multi-host driver: its own driver (pool, limits, labels) and what placement needs. */
export interface SandboxHost {
  name: string;
  driver: SandboxDriver;
  maxSessions: number;
  egress: boolean;
  /** Whether the engine holds this workspace volume: a released session goes back to the host with its files. */
  hasWorkspace(volumeName: string): Promise<boolean>;
}

const FORWARDED: readonly SandboxDriverEventName[] = ["ready", "output", "process.status", "terminated", "oom", "warning"];
const RUNNING = new Set(["starting", "ready"]);

/**
 * Several Docker engines as one SandboxDriver. A new session goes to the host with the most free slots (egress
 * sessions only where egress is allowed); a session with a workspace goes back to the host that holds its volume.
 * Which host a session is on is learnt from the engines themselves (adoption, the volume), never stored apart,
 * so a runner that restarts finds every session where it is.
 */
export class MultiHostSandboxDriver extends EventEmitter<SandboxDriverEvents> implements SandboxDriver {
  private readonly hosts: readonly SandboxHost[];
  private readonly hostOf = new Map<string, SandboxHost>();
  /** Placement in progress per session, so two acquires of a new session cannot land on two hosts. */
  private readonly placing = new Map<string, Promise<SandboxHost>>();

  constructor(hosts: readonly SandboxHost[]) {
    super();
    if (hosts.length === 0) throw new Error("MultiHostSandboxDriver needs at least one host");
    this.hosts = hosts;
    for (const host of hosts) {
      for (const event of FORWARDED) {
        host.driver.on(event, (...args: SandboxDriverEvents[typeof event]) => {
          const info = args[0] as { sessionId?: string | null } | undefined;
          if (event === "ready" && info?.sessionId) this.hostOf.set(info.sessionId, host);
          (this.emit as (e: string, ...a: unknown[]) => boolean)(event, ...args);
        });
      }
    }
  }

  /** The host the session's sandbox is on, if known (`/healthz`, receipts, tests). */
  hostName(sessionId: string): string | undefined {
    return this.hostOf.get(sessionId)?.name;
  }

  /** Each host's name with its running sessions and its limit. */
  loads(): { name: string; sessions: number; maxSessions: number; egress: boolean }[] {
    return this.hosts.map((h) => ({
      name: h.name,
      sessions: h.driver.list().filter((s) => RUNNING.has(s.status)).length,
      maxSessions: h.maxSessions,
      egress: h.egress,
    }));
  }

  async start(): Promise<void> {
    await Promise.all(this.hosts.map((h) => h.driver.start()));
  }

  /** Every host reconciles against every live session: a host adopts the ones whose containers it holds. */
  async reconcile(live: Iterable<LiveSession | string>): Promise<ReconcileReport> {
    const sessions = [...live];
    const reports = await Promise.all(this.hosts.map(async (host) => ({ host, report: await host.driver.reconcile(sessions) })));
    const merged: ReconcileReport = { adopted: [], terminated: [], reapedContainers: [], reapedVolumes: [] };
    for (const { host, report } of reports) {
      for (const id of [...report.adopted, ...report.terminated]) this.hostOf.set(id, host);
      merged.adopted.push(...report.adopted);
      merged.terminated.push(...report.terminated);
      merged.reapedContainers.push(...report.reapedContainers);
      merged.reapedVolumes.push(...report.reapedVolumes);
    }
    return merged;
  }

  /** Asks each host in turn: the container is on one of them (or on none, and the session's sandbox is gone). */
  async adopt(sessionId: string, from: { fromRunnerId: string; volumeName?: string }): Promise<AdoptOutcome> {
    for (const host of this.hosts) {
      const outcome = await host.driver.adopt(sessionId, from);
      if (outcome === "missing") continue;
      this.hostOf.set(sessionId, host);
      return outcome;
    }
    return "missing";
  }

  async detach(sessionId: string): Promise<void> {
    await this.hostOf.get(sessionId)?.driver.detach(sessionId);
    this.hostOf.delete(sessionId);
  }

  async create(sessionId: string, spec: SandboxSpec = {}): Promise<SandboxInfo> {
    return (await this.place(sessionId, spec)).driver.create(sessionId, spec);
  }

  async acquire(sessionId: string, spec: SandboxSpec = {}): Promise<SandboxInfo> {
    return (await this.place(sessionId, spec)).driver.acquire(sessionId, spec);
  }

  call(sessionId: string, params: ToolCallParams, opts?: SandboxCallOptions): Promise<ToolResult> {
    return this.driverOf(sessionId).call(sessionId, params, opts);
  }

  abort(sessionId: string, callId: string): Promise<boolean> {
    return this.driverOf(sessionId).abort(sessionId, callId);
  }

  request<T>(sessionId: string, method: string, params: unknown, schema: ResultSchema<T>, opts?: SandboxCallOptions): Promise<T> {
    return this.driverOf(sessionId).request(sessionId, method, params, schema, opts);
  }

  ping(sessionId: string): Promise<AgentPingResult> {
    return this.driverOf(sessionId).ping(sessionId);
  }

  touch(sessionId: string): void {
    this.driverOf(sessionId).touch(sessionId);
  }

  restart(sessionId: string): Promise<SandboxInfo> {
    return this.driverOf(sessionId).restart(sessionId);
  }

  release(sessionId: string): Promise<void> {
    return this.driverOf(sessionId).release(sessionId);
  }

  async destroy(sessionId: string, spec: Pick<SandboxSpec, "volumeName"> = {}): Promise<void> {
    const host = this.hostOf.get(sessionId) ?? (spec.volumeName ? await this.holderOf(spec.volumeName) : undefined);
    // Unknown everywhere: ask every host, so no workspace is left behind on one we did not think of.
    await Promise.all((host ? [host] : this.hosts).map((h) => h.driver.destroy(sessionId, spec)));
    this.hostOf.delete(sessionId);
  }

  get(sessionId: string): SandboxInfo | undefined {
    return this.hostOf.get(sessionId)?.driver.get(sessionId);
  }

  list(): SandboxInfo[] {
    return this.hosts.flatMap((h) => h.driver.list());
  }

  posture(sessionId: string): SandboxPosture {
    return this.driverOf(sessionId).posture(sessionId);
  }

  async whenPoolFull(): Promise<void> {
    await Promise.all(this.hosts.map((h) => h.driver.whenPoolFull()));
  }

  async close(opts?: { stopSessions?: boolean }): Promise<void> {
    await Promise.all(this.hosts.map((h) => h.driver.close(opts)));
  }

  /** The driver that answers for the session: its host, or the first host (which says the session is unknown). */
  private driverOf(sessionId: string): SandboxDriver {
    return (this.hostOf.get(sessionId) ?? this.hosts[0]!).driver;
  }

  private place(sessionId: string, spec: SandboxSpec): Promise<SandboxHost> {
    const known = this.hostOf.get(sessionId);
    if (known) return Promise.resolve(known);
    const pending = this.placing.get(sessionId);
    if (pending) return pending;
    const placed = this.choose(sessionId, spec).then((host) => {
      this.hostOf.set(sessionId, host);
      return host;
    });
    this.placing.set(sessionId, placed);
    const clear = () => this.placing.delete(sessionId);
    placed.then(clear, clear);
    return placed;
  }

  private async choose(sessionId: string, spec: SandboxSpec): Promise<SandboxHost> {
    if (spec.volumeName) {
      const holder = await this.holderOf(spec.volumeName);
      if (holder) return holder;
    }
    const picked = pickHost(this.loads(), spec.egress === true);
    if (!picked.host) throw new SandboxError({ sessionId, reason: "docker", message: `cannot place session ${sessionId}: ${picked.reason}` });
    const name = picked.host.name;
    return this.hosts.find((h) => h.name === name)!;
  }

  private async holderOf(volumeName: string): Promise<SandboxHost | undefined> {
    const found = await Promise.all(this.hosts.map((h) => h.hasWorkspace(volumeName).catch(() => false)));
    return this.hosts[found.indexOf(true)];
  }
}
