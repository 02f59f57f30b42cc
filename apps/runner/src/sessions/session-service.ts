import { sessionView, type Repositories, type SessionRecord } from "@berth/db";
import type { SandboxDriver } from "@berth/sandbox";
import { AppError, AUTONOMY_LEVELS, type Autonomy, type CreateSessionBody, type SessionView } from "@berth/protocol";
import type { SandboxTermination } from "@berth/protocol";
import { allows, authorize, listScope, type Target } from "../auth/authorize";
import type { Principal } from "../auth/tokens";
import { newId } from "../auth/tokens";
import type { RunnerEvents } from "../events/runner-events";
import { InvalidatingCache } from "../auth/invalidating-cache";
import type { InvalidationBus } from "../auth/invalidation-bus";
import type { SessionLeases } from "../cluster/session-leases";
import type { TakeOverOutcome } from "../cluster/failover";

/** How long a session row is read from memory when nothing invalidated it. */
const CACHE_TTL_MS = 30_000;
const CACHE_MAX_ENTRIES = 10_000;

/** The highest autonomy a developer may give their own session after creation: yolo is an operator's call. */
export const DEVELOPER_MAX_AUTONOMY: Autonomy = "trusted";

/** Above trusted is the table's `session yolo` cell (docs/api.md, Roles): operators and admins only. */
function assertAutonomyAllowed(principal: Principal, autonomy: Autonomy, session: Target): void {
  if (AUTONOMY_LEVELS.indexOf(autonomy) <= AUTONOMY_LEVELS.indexOf(DEVELOPER_MAX_AUTONOMY)) return;
  if (allows(principal, "session", "yolo", session)) return;
  throw new AppError({ code: "forbidden", message: `autonomy: a ${principal.role} may set at most ${DEVELOPER_MAX_AUTONOMY} (got ${autonomy}); ask an operator for ${autonomy}` });
}

/**
 * Sessions: the database row is the system of record, the sandbox driver runs the container. Driver
 * lifecycle events land on the row with their machine-readable cause. Every tool call reads its session, so
 * the row is kept in memory; each write here publishes an invalidation, which empties it on this runner at once
 * (and on others subscribed to the same bus).
 */
export class SessionService {
  private readonly cache = new InvalidatingCache<SessionRecord>({ ttlMs: CACHE_TTL_MS, maxEntries: CACHE_MAX_ENTRIES });
  /** What `get` answers for a row read (a row is replaced, never changed, when the session changes). */
  private readonly views = new WeakMap<SessionRecord, SessionView & { env: Record<string, string> }>();

  constructor(
    private readonly deps: {
      repos: Pick<Repositories, "sessions" | "leases">;
      invalidation: InvalidationBus;
      /** This runner's hold on the sessions it creates and adopts (several runners on one database). */
      leases: Pick<SessionLeases, "runnerId" | "expiresAt" | "now">;
      driver: SandboxDriver;
      events: RunnerEvents;
      onTerminated?: (t: SandboxTermination) => Promise<void>;
      /** The session was deleted (its container and workspace are gone): release what else it held. */
      onRemoved?: (sessionId: string) => Promise<void>;
    },
  ) {
    deps.invalidation.subscribe((event) => {
      if (event.kind === "session") this.cache.delete(event.id);
    });
    deps.driver.on("terminated", (termination) => void this.onTerminated(termination));
    deps.driver.on("ready", (info) => void this.setStatus(info.sessionId, "ready", null));
  }

  /**
   * On runner start: adopt the containers of the live sessions this runner holds (its own, renewed now, and
   * unowned rows from before several runners, claimed by compare-and-set), reap what is left of its own, and
   * never touch a session another runner holds — failover takes a dead runner's sessions once their lease lapses.
   */
  async reconcile(): Promise<void> {
    const { repos, driver, leases } = this.deps;
    const me = leases.runnerId;
    await repos.leases.renewAll(me, leases.expiresAt());
    for (const row of await repos.leases.live()) {
      if (row.runnerId === null) await repos.leases.takeOver(row.sessionId, { from: null, to: me, now: leases.now(), expiresAt: leases.expiresAt() });
    }
    const live = await repos.leases.live();
    const report = await driver.reconcile(
      live.map((s) => ({ sessionId: s.sessionId, ...(s.volumeName ? { volumeName: s.volumeName } : {}), ...(s.runnerId === me ? {} : { elsewhere: true }) })),
    );
    // A session this runner took over from another before it restarted: its container carries that runner's label.
    const found = new Set([...report.adopted, ...report.terminated]);
    for (const s of live) {
      if (s.runnerId !== me || found.has(s.sessionId) || !(s.status === "ready" || s.status === "starting")) continue;
      const outcome = await driver.adopt(s.sessionId, { fromRunnerId: me, ...(s.volumeName ? { volumeName: s.volumeName } : {}) });
      if (outcome === "terminated") report.terminated.push(s.sessionId);
    }
    for (const sessionId of report.terminated) {
      await this.deps.repos.sessions.markEnded(sessionId, "stopped", "runner_restart");
      this.changed(sessionId);
    }
  }

  async create(body: CreateSessionBody, principal: Principal): Promise<SessionView> {
    authorize(principal, "session", "create");
    // The same ceiling as a later change: a developer cannot start at a level they could not switch to.
    assertAutonomyAllowed(principal, body.autonomy, { id: "new", ownerId: principal.userId });
    const id = newId("ses");
    const held = { ownerRunnerId: this.deps.leases.runnerId, leaseExpiresAt: this.deps.leases.expiresAt() };
    await this.deps.repos.sessions.create({ id, name: body.name ?? `session ${new Date().toISOString().slice(0, 16).replace("T", " ")}`, ownerId: principal.userId, autonomy: body.autonomy, network: body.network, env: body.env, ...held });
    try {
      const info = await this.deps.driver.acquire(id, { egress: body.network === "egress" });
      const ready = await this.deps.repos.sessions.markReady(id, { containerId: info.containerId, volumeName: info.volumeName });
      this.changed(id);
      return sessionView(ready);
    } catch (error) {
      await this.deps.repos.sessions.markEnded(id, "failed", "start_failed");
      this.changed(id);
      throw new AppError({ code: "sandbox_unavailable", message: `Could not start a sandbox: ${(error as Error).message}`, userMessage: `Could not start a sandbox for the session: ${(error as Error).message}`, cause: error });
    }
  }

  async list(principal: Principal): Promise<SessionView[]> {
    const rows = await this.deps.repos.sessions.list(listScope(principal, "session", "list"));
    return rows.map(sessionView);
  }

  /**
   * The session if `check` passes: by default the principal may read it (docs/api.md, Roles); callers about
   * to act on it pass their own cell, e.g. `(t) => authorize(principal, "toolCall", "call", t)`. Someone
   * who may not read it gets a 404, never a 403: its existence is not leaked.
   */
  async get(
    id: string,
    principal: Principal,
    check: (target: Target) => unknown = (target) => authorize(principal, "session", "read", target),
  ): Promise<SessionView & { env: Record<string, string> }> {
    return this.viewOf(await this.record(id, check));
  }

  /** `get` without waiting, when the row is in memory (a tool call's usual case); undefined: ask `get`. Throws what `get` rejects with. */
  getNow(id: string, check: (target: Target) => unknown): (SessionView & { env: Record<string, string> }) | undefined {
    const cached = this.cache.get(id);
    return cached ? this.viewOf(this.checked(id, cached, check)) : undefined;
  }

  /** One view per cached row, shared by every call that reads it (and frozen: a caller cannot change another's). */
  private viewOf(record: SessionRecord): SessionView & { env: Record<string, string> } {
    let view = this.views.get(record);
    if (!view) {
      view = Object.freeze({ ...sessionView(record), env: record.env });
      this.views.set(record, view);
    }
    return view;
  }

  /** The row with where its sandbox lives, under the same rule as get. */
  private async record(id: string, check: (target: Target) => unknown): Promise<SessionRecord> {
    return this.checked(id, await this.read(id), check);
  }

  private checked(id: string, record: SessionRecord | null, check: (target: Target) => unknown): SessionRecord {
    if (!record || record.status === "deleted") throw new AppError({ code: "not_found", message: `Session not found: ${id}` });
    check({ id: record.id, ownerId: record.ownerId });
    return record;
  }

  /** The row, from memory when it is there. */
  private async read(id: string): Promise<SessionRecord | null> {
    const cached = this.cache.get(id);
    if (cached) return cached;
    const epoch = this.cache.epoch;
    const record = await this.deps.repos.sessions.get(id);
    if (record) this.cache.set(id, record, epoch);
    return record;
  }

  /** After every write to a session's row: its cached copy is stale everywhere. */
  private changed(id: string): void {
    this.deps.invalidation.publish({ kind: "session", id });
  }

  async remove(id: string, principal: Principal): Promise<void> {
    const row = await this.record(id, (target) => authorize(principal, "session", "delete", target));
    await this.deps.repos.sessions.markEnded(id, "deleted", "deleted");
    this.changed(id);
    await this.deps.driver.destroy(id, row.volumeName ? { volumeName: row.volumeName } : {});
    await this.deps.onRemoved?.(id);
    this.deps.events.emit("session:status", { sessionId: id, status: "deleted", terminationCause: "deleted" });
  }

  /**
   * Changes a session's autonomy after creation (PATCH /api/sessions/:id): its owner up to `trusted` as a
   * developer (yolo, which never asks, needs an operator), an operator or admin to any level in any session.
   * Recorded on the row with who and when, and sent to the session's room as session:status.
   */
  async setAutonomy(id: string, autonomy: Autonomy, principal: Principal): Promise<SessionView> {
    const session = await this.get(id, principal);
    authorize(principal, "session", "update", { id: session.id, ownerId: session.ownerId });
    assertAutonomyAllowed(principal, autonomy, session);
    const row = await this.deps.repos.sessions.setAutonomy(session.id, autonomy, principal.name);
    this.changed(session.id);
    this.deps.events.emit("session:status", {
      sessionId: row.id,
      status: row.status,
      terminationCause: row.terminationCause,
      autonomy,
      autonomyChangedBy: principal.name,
      autonomyChangedAt: row.autonomyChangedAt,
    });
    return sessionView(row);
  }

  /** A fresh container on the same workspace volume. */
  async restart(id: string, principal: Principal): Promise<SessionView> {
    const row = await this.record(id, (target) => authorize(principal, "session", "restart", target));
    const info = this.deps.driver.get(id)
      ? await this.deps.driver.restart(id)
      : await this.deps.driver.acquire(id, { egress: row.network === "egress", ...(row.volumeName ? { volumeName: row.volumeName } : {}) });
    const updated = await this.deps.repos.sessions.markReady(id, { containerId: info.containerId, volumeName: info.volumeName }, { restarted: true });
    this.changed(id);
    this.deps.events.emit("session:status", { sessionId: id, status: "ready", terminationCause: null });
    return sessionView(updated);
  }

  /**
   * A session this runner has just taken over from a dead one (cluster/failover.ts): an adopted sandbox is ready
   * (its ready event says so), a dead one stopped with its cause (its terminated event), and a container that is
   * gone ends the session `stopped` with cause `runner_failover`; clients hear session:status either way.
   */
  async settleTakeOver(sessionId: string, outcome: TakeOverOutcome): Promise<void> {
    if (outcome === "missing") await this.setStatus(sessionId, "stopped", "runner_failover");
    else this.changed(sessionId);
  }

  private async setStatus(sessionId: string, status: string, cause: string | null): Promise<void> {
    const updated = await this.deps.repos.sessions.setStatusUnlessDeleted(sessionId, status, cause);
    this.changed(sessionId);
    if (updated) this.deps.events.emit("session:status", { sessionId, status, terminationCause: cause });
  }

  private async onTerminated(termination: SandboxTermination): Promise<void> {
    if (termination.cause === "deleted") return;
    await this.setStatus(termination.sessionId, "stopped", termination.cause);
    await this.deps.onTerminated?.(termination);
  }
}
