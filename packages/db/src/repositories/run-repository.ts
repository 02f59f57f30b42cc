import { redactSecrets, type RunView } from "@berth/protocol";
import { z } from "zod";
import { sqliteWriterOf, type Database } from "../create-database";
import { WriteBehind } from "./write-behind";
import type { RunModel } from "../generated/sqlite/models";
import { isoOrNull, parseJsonColumn } from "./json-column";

/** A run as the API shows it (the protocol's RunView), its details read as the object they always are. */
export interface RunRecord extends RunView {
  details: Record<string, unknown>;
}

/** A run left in flight or unsealed by an earlier runner: what recovery needs to end it and seal its receipt. */
export interface UnfinishedRun {
  id: string;
  sessionId: string;
  userId: string;
  tool: string;
  caller: string | null;
  cause: string | null;
  args: Record<string, unknown>;
  details: Record<string, unknown>;
  startedAt: Date;
  endedAt: Date | null;
  /** Not on the run row: the tool call that made the run recorded it ("unknown" without one). */
  actionClass: string;
}

export const RunArgsColumnSchema = z.unknown();
export const RunDetailsColumnSchema = z.record(z.string(), z.unknown());

const WITH_RECEIPT = { receipt: { select: { id: true } } } as const;
type RunRow = RunModel & { receipt: { id: string } | null };

function toView(row: RunRow): RunRecord {
  return {
    id: row.id,
    sessionId: row.sessionId,
    userId: row.userId,
    caller: row.caller,
    tool: row.tool,
    kind: row.kind,
    status: row.status,
    outcome: row.outcome,
    cause: row.cause,
    exitCode: row.exitCode,
    args: parseJsonColumn(RunArgsColumnSchema, row.argsJson, "run.argsJson"),
    details: parseJsonColumn(RunDetailsColumnSchema, row.detailsJson, "run.detailsJson"),
    stdoutBytes: row.stdoutBytes,
    stderrBytes: row.stderrBytes,
    startedAt: row.startedAt.toISOString(),
    endedAt: isoOrNull(row.endedAt),
    durationMs: row.durationMs,
    receiptId: row.receipt?.id ?? null,
  };
}

/** SQLite's direct statements for a run's row and its end (the columns Prisma's create and update would write). */
const INSERT_RUN = `INSERT INTO "Run" ("id", "sessionId", "userId", "tool", "kind", "status", "argsJson", "caller", "startedAt") VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`;
const FINISH_RUN = `UPDATE "Run" SET "status" = ?, "outcome" = ?, "cause" = ?, "exitCode" = ?, "detailsJson" = ?, "stdoutBytes" = ?, "stderrBytes" = ?, "endedAt" = ?, "durationMs" = ? WHERE "id" = ?`;

export interface RunListFilter {
  /** Only runs of this user's sessions. */
  ownerId?: string;
  sessionId?: string;
  status?: string;
  outcome?: string;
  /** Started before this instant. */
  before?: Date;
  limit: number;
}

/** Runs: one row per execution; logs live on disk, the receipt in Receipt. */
export class RunRepository {
  /** Reads wait for the run ends and receipts written after their replies (WriteBehind). */
  constructor(
    private readonly db: Database,
    private readonly writes = new WriteBehind(),
  ) {}

  /** `args` are stored redacted: secret-looking values and the `secrets` given are masked (redactSecrets). */
  async create(input: { id: string; sessionId: string; userId: string; tool: string; kind: string; args: unknown; secrets: string[]; caller: string | null; startedAt: Date }): Promise<void> {
    const { args, secrets, ...fields } = input;
    const argsJson = JSON.stringify(redactSecrets(args, secrets));
    const writeNow = sqliteWriterOf(this.db);
    if (writeNow) {
      // Every bash call and script writes this row and its end behind the reply: straight to SQLite, as the
      // tool-call rows go, Prisma's compiler costs more CPU than the statement (on the thread the next call needs).
      writeNow(INSERT_RUN, [fields.id, fields.sessionId, fields.userId, fields.tool, fields.kind, "running", argsJson, fields.caller, fields.startedAt]);
      return;
    }
    await this.db.run.create({ data: { ...fields, status: "running", argsJson } });
  }

  async get(id: string): Promise<RunRecord | null> {
    await this.writes.settled();
    const row = await this.db.run.findUnique({ where: { id }, include: WITH_RECEIPT });
    return row ? toView(row) : null;
  }

  /** The run and its session's owner, who it belongs to for authorization. */
  async getWithOwner(id: string): Promise<{ run: RunRecord; ownerId: string } | null> {
    await this.writes.settled();
    const row = await this.db.run.findUnique({ where: { id }, include: { ...WITH_RECEIPT, session: { select: { ownerId: true } } } });
    return row ? { run: toView(row), ownerId: row.session.ownerId } : null;
  }

  async ownerOf(id: string): Promise<string | null> {
    await this.writes.settled();
    const row = await this.db.run.findUnique({ where: { id }, select: { session: { select: { ownerId: true } } } });
    return row?.session.ownerId ?? null;
  }

  /** Newest first. */
  async list(filter: RunListFilter): Promise<RunRecord[]> {
    await this.writes.settled();
    const rows = await this.db.run.findMany({
      where: {
        ...(filter.ownerId ? { session: { ownerId: filter.ownerId } } : {}),
        ...(filter.sessionId ? { sessionId: filter.sessionId } : {}),
        ...(filter.status ? { status: filter.status } : {}),
        ...(filter.outcome ? { outcome: filter.outcome } : {}),
        ...(filter.before ? { startedAt: { lt: filter.before } } : {}),
      },
      orderBy: { startedAt: "desc" },
      take: filter.limit,
      include: WITH_RECEIPT,
    });
    return rows.map(toView);
  }

  /**
   * Runs that ended before `before` (finished or interrupted), oldest first, a page at a time: `after` is the last
   * of the previous page. What log retention (apps/runner runs/log-retention.ts) removes the logs of.
   */
  async endedBefore(before: Date, page: { limit: number; after?: { endedAt: Date; id: string } }): Promise<{ id: string; endedAt: Date }[]> {
    await this.writes.settled();
    const { after } = page;
    const rows = await this.db.run.findMany({
      where: {
        status: { not: "running" },
        endedAt: { lt: before },
        ...(after ? { OR: [{ endedAt: { gt: after.endedAt } }, { endedAt: after.endedAt, id: { gt: after.id } }] } : {}),
      },
      orderBy: [{ endedAt: "asc" }, { id: "asc" }],
      take: page.limit,
      select: { id: true, endedAt: true },
    });
    return rows.flatMap((row) => (row.endedAt ? [{ id: row.id, endedAt: row.endedAt }] : []));
  }

  /** The run of a session's background process (its details name the process). */
  async findProcessRun(sessionId: string, processId: string): Promise<RunRecord | null> {
    await this.writes.settled();
    const row = await this.db.run.findFirst({ where: { sessionId, kind: "process", detailsJson: { contains: processId } }, include: WITH_RECEIPT });
    return row ? toView(row) : null;
  }

  /** Replaces a running run's details (a process id, a terminal's name) so a reload finds it. */
  async setDetails(id: string, details: Record<string, unknown>): Promise<void> {
    await this.db.run.update({ where: { id }, data: { detailsJson: JSON.stringify(details) } });
  }

  async finish(
    id: string,
    end: { status: "finished" | "interrupted"; outcome: string; cause: string | null; exitCode: number | null; details: Record<string, unknown>; stdoutBytes: number; stderrBytes: number; endedAt: Date; durationMs: number },
  ): Promise<void> {
    const { details, ...fields } = end;
    const detailsJson = JSON.stringify(details);
    const writeNow = sqliteWriterOf(this.db);
    if (writeNow) {
      const values = [fields.status, fields.outcome, fields.cause, fields.exitCode, detailsJson, fields.stdoutBytes, fields.stderrBytes, fields.endedAt, fields.durationMs, id];
      // As Prisma's update would, a run that is not there is an error, not a silent no-op.
      if (writeNow(FINISH_RUN, values) === 0) throw new Error(`Run ${id} was not found to record its end`);
      return;
    }
    await this.db.run.update({ where: { id }, data: { ...fields, detailsJson } });
  }

  /** Recovery's end of a run: interrupted, with its stored logs' sizes; details kept as they were. */
  async markInterrupted(id: string, end: { cause: string; endedAt: Date; durationMs: number; stdoutBytes: number; stderrBytes: number }): Promise<void> {
    await this.db.run.update({ where: { id }, data: { status: "interrupted", outcome: "interrupted", ...end } });
  }

  /** Gives a cause to runs that ended `aborted` without one (their sandbox's end explains them). */
  async explainAborted(ids: string[], cause: string): Promise<void> {
    await this.db.run.updateMany({ where: { id: { in: ids }, outcome: "aborted", cause: null }, data: { cause } });
  }

  /** Runs still `running` (an earlier runner's, at start), oldest first. */
  listInFlight(): Promise<UnfinishedRun[]> {
    return this.unfinished({ status: "running" });
  }

  /** Interrupted runs without a receipt (runners before receipts were sealed at restart), oldest first. */
  listUnsealedInterrupted(): Promise<UnfinishedRun[]> {
    return this.unfinished({ status: "interrupted", receipt: null });
  }

  async countByOutcome(): Promise<Record<string, number>> {
    await this.writes.settled();
    const groups = await this.db.run.groupBy({ by: ["outcome"], _count: { _all: true } });
    return Object.fromEntries(groups.map((g) => [g.outcome ?? "running", g._count._all]));
  }

  private async unfinished(where: { status: string; receipt?: null }): Promise<UnfinishedRun[]> {
    await this.writes.settled();
    const rows = await this.db.run.findMany({ where, orderBy: { startedAt: "asc" }, include: { toolCalls: { select: { actionClass: true }, take: 1 } } });
    return rows.map((row) => ({
      id: row.id,
      sessionId: row.sessionId,
      userId: row.userId,
      tool: row.tool,
      caller: row.caller,
      cause: row.cause,
      // Lenient: a row that does not read still gets ended and sealed.
      args: parseJsonColumn(RunDetailsColumnSchema, row.argsJson, "run.argsJson", {}),
      details: parseJsonColumn(RunDetailsColumnSchema, row.detailsJson, "run.detailsJson", {}),
      startedAt: row.startedAt,
      endedAt: row.endedAt,
      actionClass: row.toolCalls[0]?.actionClass ?? "unknown",
    }));
  }
}
