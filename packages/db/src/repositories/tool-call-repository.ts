import { redactSecrets, type ToolCallView } from "@berth/protocol";
import { sqliteWriterOf, type Database } from "../create-database";
import { Prisma } from "../generated/sqlite/client";
import { WriteBehind } from "./write-behind";

/** How long rows wait to be written together, and how many make a batch written at once. */
const BATCH_MS = 100;
const BATCH_ROWS = 256;

export interface ToolCallRecordInput {
  id: string;
  sessionId: string;
  userId: string;
  caller: string;
  via: string | null;
  tool: string;
  /** The call text's hash, or what holds it, read when the row is written (admission renders it when first read). */
  argsSha256: string | { readonly sha256: string };
  /** Stored redacted: secret-looking values and `secrets` masked (redactSecrets). */
  args: unknown;
  secrets: string[];
  actionClass: string;
  verdict: string;
  approvalId: string | null;
  ok: boolean | null;
  errorCode: string | null;
  runId: string | null;
  durationMs: number | null;
  trace: unknown;
}

/** Tool calls: one row per call, what was asked and how admission judged it. */
export class ToolCallRepository {
  private batch: HeldRow[] = [];
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly db: Database,
    private readonly writes = new WriteBehind(),
  ) {
    writes.onSettle(() => this.flush());
  }

  async record(input: ToolCallRecordInput): Promise<void> {
    await this.db.toolCall.create({ data: rowOf(input, input.args, traceJsonOf(input.trace)) });
  }

  /**
   * The row is written after the caller's reply, with the others of the next few milliseconds in one
   * statement (a query costs far more than a row). Reads here wait for it (WriteBehind).
   */
  recordLater(input: ToolCallRecordInput): void {
    // The input is held as it came, its arguments as JSON text (the caller's objects may change after this returns),
    // redacted when the batch is written: a plain copy costs the reply's path a fraction of the redaction.
    this.batch.push({ input, argsText: JSON.stringify(input.args) ?? "null", traceJson: traceJsonOf(input.trace), endedAt: Date.now() });
    if (this.batch.length >= BATCH_ROWS) this.flush();
    else this.timer ??= setTimeout(() => this.flush(), BATCH_MS);
  }

  private flush(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    if (this.batch.length === 0) return;
    const rows: Row[] = [];
    for (const held of this.batch) {
      // A row that cannot be rendered is reported (the runner's log) and left out; the batch's others are written.
      try {
        rows.push(writtenLater(held));
      } catch (error) {
        this.writes.track(Promise.reject(error instanceof Error ? error : new Error(String(error))));
      }
    }
    this.batch = [];
    if (rows.length === 0) return;
    const writeNow = sqliteWriterOf(this.db);
    const insert = () => (writeNow ? attempt(() => writeNow(insertSqlite(rows.length), rows.flatMap((row) => COLUMNS.map((column) => row[column])))) : this.db.$executeRaw(insertRows(rows)));
    // A call's run row is written behind too (`after` the run's id): the batch waits for those rows, or its
    // foreign keys would fail it whole (and every row in it would be lost) when one has not landed yet.
    const runs = [...new Set(rows.map((row) => row.runId).filter((id): id is string => id !== null))];
    const pending = runs.map((id) => this.writes.landed(id));
    this.writes.track(pending.length === 0 ? insert() : Promise.all(pending).then(insert));
  }

  /** Oldest first. */
  async listForRun(runId: string): Promise<ToolCallView[]> {
    await this.writes.settled();
    const rows = await this.db.toolCall.findMany({ where: { runId }, orderBy: { createdAt: "asc" } });
    return rows.map((c) => ({
      id: c.id,
      tool: c.tool,
      caller: c.caller,
      via: c.via,
      actionClass: c.actionClass,
      verdict: c.verdict,
      approvalId: c.approvalId,
      ok: c.ok,
      errorCode: c.errorCode,
      durationMs: c.durationMs,
      createdAt: c.createdAt.toISOString(),
    }));
  }
}

/** The columns a batched row fills, in the order `insertRows` writes them. */
const COLUMNS = [
  "id", "sessionId", "userId", "caller", "via", "tool", "argsSha256", "argsJson", "actionClass", "verdict",
  "approvalId", "ok", "errorCode", "runId", "durationMs", "traceJson", "createdAt",
] as const satisfies readonly (keyof Row)[];
const COLUMN_LIST = Prisma.raw(COLUMNS.map((column) => `"${column}"`).join(", "));

type Row = ReturnType<typeof rowOf> & { createdAt: Date };

/**
 * One multi-row INSERT with bound values (placeholders as each database spells them). Not createMany: Prisma's query
 * compiler costs about 0.5 ms of CPU a row there, against under 0.1 ms a row for this statement, on the runner's
 * one thread, between the replies of the calls that come next.
 */
function insertRows(rows: readonly Row[]): Prisma.Sql {
  const values = rows.map((row) => Prisma.sql`(${Prisma.join(COLUMNS.map((column) => row[column]))})`);
  return Prisma.sql`INSERT INTO "ToolCall" (${COLUMN_LIST}) VALUES ${Prisma.join(values)}`;
}

/** The same INSERT with `?` placeholders, for SQLite's direct write (the statement is prepared once per row count). */
function insertSqlite(count: number): string {
  const row = `(${COLUMNS.map(() => "?").join(", ")})`;
  return `INSERT INTO "ToolCall" (${COLUMN_LIST.sql}) VALUES ${Array.from({ length: count }, () => row).join(", ")}`;
}

/** A synchronous write as the promise WriteBehind tracks: its failure is reported there, not thrown at the caller. */
function attempt(write: () => unknown): Promise<unknown> {
  try {
    return Promise.resolve(write());
  } catch (error) {
    return Promise.reject(error instanceof Error ? error : new Error(String(error)));
  }
}

/** A call's columns: its arguments redacted (JSON data), its trace as JSON text, its call text's hash read now. */
function rowOf(input: ToolCallRecordInput, args: unknown, traceJson: string | null) {
  const { args: _args, trace: _trace, secrets, argsSha256, ...fields } = input;
  return { ...fields, argsSha256: typeof argsSha256 === "string" ? argsSha256 : argsSha256.sha256, argsJson: JSON.stringify(redactSecrets(args, secrets)), traceJson };
}

const traceJsonOf = (trace: unknown): string | null => (trace === undefined ? null : JSON.stringify(trace));

/**
 * A row recordLater holds until its batch is written: the input as it came, its arguments and trace as JSON text
 * taken then (those objects are not read again), the arguments not yet redacted.
 */
interface HeldRow {
  input: ToolCallRecordInput;
  argsText: string;
  traceJson: string | null;
  /** When the call ended (epoch ms): its row's createdAt. */
  endedAt: number;
}

function writtenLater({ input, argsText, traceJson, endedAt }: HeldRow): Row {
  return { ...rowOf(input, JSON.parse(argsText), traceJson), createdAt: new Date(endedAt) };
}
