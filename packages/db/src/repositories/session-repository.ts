import { AutonomySchema, NetworkSchema, type Autonomy, type Network, type SessionView } from "@berth/protocol";
import { z } from "zod";
import type { Database } from "../create-database";
import type { SessionModel } from "../generated/sqlite/models";
import { isoOrNull, parseColumn, parseJsonColumn } from "./json-column";

/** The view plus what only the runner reads: the declared env and where the sandbox lives. */
export interface SessionRecord extends SessionView {
  env: Record<string, string>;
  containerId: string | null;
  volumeName: string | null;
}

/** envJson: the declared environment, keys and values (never in receipts). */
export const SessionEnvColumnSchema = z.record(z.string(), z.string());

type SessionRow = SessionModel;

export function sessionView(record: SessionRecord): SessionView {
  const { env: _env, containerId: _containerId, volumeName: _volumeName, ...view } = record;
  return view;
}

function toRecord(row: SessionRow): SessionRecord {
  return {
    id: row.id,
    name: row.name,
    ownerId: row.ownerId,
    status: row.status,
    autonomy: parseColumn(AutonomySchema, row.autonomy, "session.autonomy"),
    network: parseColumn(NetworkSchema, row.network, "session.network"),
    terminationCause: row.terminationCause,
    terminatedAt: isoOrNull(row.terminatedAt),
    autonomyChangedBy: row.autonomyChangedBy,
    autonomyChangedAt: isoOrNull(row.autonomyChangedAt),
    createdAt: row.createdAt.toISOString(),
    env: parseJsonColumn(SessionEnvColumnSchema, row.envJson, "session.envJson"),
    containerId: row.containerId,
    volumeName: row.volumeName,
  };
}

const LIVE = { status: { not: "deleted" } } as const;

/** Sessions: the row is the system of record of a sandbox's life (the driver runs the container). */
export class SessionRepository {
  constructor(private readonly db: Database) {}

  /** `ownerRunnerId` and `leaseExpiresAt`: the runner creating it holds it from the start (SessionLeaseRepository). */
  async create(input: {
    id: string;
    name: string;
    ownerId: string;
    autonomy: Autonomy;
    network: Network;
    env: Record<string, string>;
    ownerRunnerId?: string;
    leaseExpiresAt?: Date;
  }): Promise<void> {
    const { env, ...fields } = input;
    await this.db.session.create({ data: { ...fields, envJson: JSON.stringify(env), status: "starting" } });
  }

  /** Deleted sessions included: the caller decides what a deleted one means. */
  async get(id: string): Promise<SessionRecord | null> {
    const row = await this.db.session.findUnique({ where: { id } });
    return row ? toRecord(row) : null;
  }

  /** Live sessions, newest first; `ownerId` keeps one user's. */
  async list(filter: { ownerId?: string } = {}): Promise<SessionRecord[]> {
    const rows = await this.db.session.findMany({ where: { ...LIVE, ...(filter.ownerId ? { ownerId: filter.ownerId } : {}) }, orderBy: { createdAt: "desc" } });
    return rows.map(toRecord);
  }

  /** What reconcile hands the driver: every live session and its workspace volume. */
  async listLive(): Promise<{ id: string; volumeName: string | null }[]> {
    return this.db.session.findMany({ where: LIVE, select: { id: true, volumeName: true } });
  }

  async liveIdsOwnedBy(ownerId: string): Promise<string[]> {
    const rows = await this.db.session.findMany({ where: { ...LIVE, ownerId }, select: { id: true } });
    return rows.map((row) => row.id);
  }

  countLive(): Promise<number> {
    return this.db.session.count({ where: LIVE });
  }

  async ownerOf(id: string): Promise<string | null> {
    const row = await this.db.session.findUnique({ where: { id }, select: { ownerId: true } });
    return row?.ownerId ?? null;
  }

  /** The declared env of a session that exists (stdio MCP servers start with it). */
  async envOf(id: string): Promise<Record<string, string>> {
    const row = await this.db.session.findUniqueOrThrow({ where: { id }, select: { envJson: true } });
    return parseJsonColumn(SessionEnvColumnSchema, row.envJson, "session.envJson");
  }

  /** The sandbox is up; `restarted` also clears how the previous one ended. */
  async markReady(id: string, container: { containerId: string | null; volumeName: string | null }, opts: { restarted?: boolean } = {}): Promise<SessionRecord> {
    const row = await this.db.session.update({
      where: { id },
      data: { status: "ready", ...container, ...(opts.restarted ? { terminationCause: null, terminatedAt: null } : {}) },
    });
    return toRecord(row);
  }

  /** Ends the session's row with its cause, now. */
  async markEnded(id: string, status: "stopped" | "failed" | "deleted", terminationCause: string): Promise<void> {
    await this.db.session.update({ where: { id }, data: { status, terminationCause, terminatedAt: new Date() } });
  }

  /** A status from the driver; never resurrects a deleted session. True when a row changed. */
  async setStatusUnlessDeleted(id: string, status: string, terminationCause: string | null): Promise<boolean> {
    const { count } = await this.db.session.updateMany({
      where: { id, ...LIVE },
      data: { status, ...(terminationCause ? { terminationCause, terminatedAt: new Date() } : {}) },
    });
    return count > 0;
  }

  async setAutonomy(id: string, autonomy: Autonomy, changedBy: string): Promise<SessionRecord> {
    const row = await this.db.session.update({ where: { id }, data: { autonomy, autonomyChangedBy: changedBy, autonomyChangedAt: new Date() } });
    return toRecord(row);
  }
}
