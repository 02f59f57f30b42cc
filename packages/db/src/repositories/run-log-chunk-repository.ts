// @ts-expect-error -- node-postgres ships no types (no @types/pg here); the part used is typed below.
import { Pool as UntypedPool } from "pg";
import type { Database } from "../create-database";
import { Prisma } from "../generated/sqlite/client";

/** One chunk of a run's output as stored: its place in the run (`seq`) and in its stream, when it came, its bytes. */
export interface RunLogChunkRecord {
  runId: string;
  seq: number;
  stream: "stdout" | "stderr";
  offset: number;
  /** Arrival time, epoch ms. */
  ms: number;
  data: Buffer;
}

/** The part of node-postgres's Pool used here. */
interface Pool {
  query<R>(text: string, values?: unknown[]): Promise<{ rows: R[] }>;
  on(event: "error", listener: (error: Error) => void): unknown;
  end(): Promise<void>;
}
const PgPool = UntypedPool as new (config: { connectionString: string; max?: number }) => Pool;

type RunLogChunkRow = Awaited<ReturnType<Database["runLogChunk"]["findUniqueOrThrow"]>>;

function toRecord(row: RunLogChunkRow): RunLogChunkRecord {
  const data = Buffer.from(row.data.buffer, row.data.byteOffset, row.data.byteLength);
  return { runId: row.runId, seq: row.seq, stream: row.stream === "stderr" ? "stderr" : "stdout", offset: Number(row.offset), ms: row.at.getTime(), data };
}

/**
 * Run logs in the database (the `database` log store): chunks keyed by run and sequence number, written by the
 * run's runner before it shows them and read by any runner that serves the log.
 *
 * On PostgreSQL through node-postgres on a small pool of its own, not Prisma: Prisma's driver adapter converts
 * every byte of a `Bytes` value on the runner's one thread (20 MB of 64 KiB chunks cost 2.5 s and 0.8 s of CPU,
 * node-postgres 0.4 s and 0.09 s), and this table carries all the output the runners stream. Both write what
 * Prisma writes: `at` as UTC wall time in TIMESTAMP(3), `offset` as BIGINT.
 */
export class RunLogChunkRepository {
  private readonly pool: Pool | null;

  constructor(
    private readonly db: Database,
    /** The PostgreSQL URL when the database is PostgreSQL. */
    postgresUrl?: string,
  ) {
    this.pool = postgresUrl ? new PgPool({ connectionString: postgresUrl, max: 2 }) : null;
    // An idle connection the server dropped is replaced on the next query; unheard, the error would end the process.
    this.pool?.on("error", () => undefined);
  }

  /**
   * Stores a batch of chunks in one statement: all of them or none. A multi-row INSERT with bound values, not
   * createMany: Prisma's query compiler costs a fraction of a millisecond of CPU a row, on the runner's one thread,
   * between the chunks of the output it is streaming.
   */
  async append(chunks: RunLogChunkRecord[]): Promise<void> {
    if (chunks.length === 0) return;
    if (this.pool) {
      const params = chunks.flatMap((c) => [c.runId, c.seq, c.stream, c.offset, new Date(c.ms).toISOString(), c.data]);
      const rows = chunks.map((_, i) => `($${i * 6 + 1}, $${i * 6 + 2}, $${i * 6 + 3}, $${i * 6 + 4}, $${i * 6 + 5}::timestamptz AT TIME ZONE 'UTC', $${i * 6 + 6})`);
      await this.pool.query(`INSERT INTO "RunLogChunk" ("runId", "seq", "stream", "offset", "at", "data") VALUES ${rows.join(", ")}`, params);
      return;
    }
    const values = chunks.map((c) => Prisma.sql`(${c.runId}, ${c.seq}, ${c.stream}, ${BigInt(c.offset)}, ${new Date(c.ms)}, ${c.data})`);
    await this.db.$executeRaw`INSERT INTO "RunLogChunk" ("runId", "seq", "stream", "offset", "at", "data") VALUES ${Prisma.join(values)}`;
  }

  /** Up to `limit` chunks of a run from `fromSeq` on, in order. */
  async list(runId: string, fromSeq: number, limit: number): Promise<RunLogChunkRecord[]> {
    if (this.pool) {
      const { rows } = await this.pool.query<{ runId: string; seq: number; stream: string; offset: string; ms: string; data: Buffer }>(
        `SELECT "runId", "seq", "stream", "offset", round(EXTRACT(EPOCH FROM "at") * 1000)::int8 AS "ms", "data" FROM "RunLogChunk"
         WHERE "runId" = $1 AND "seq" >= $2 ORDER BY "seq" LIMIT $3`,
        [runId, fromSeq, limit],
      );
      return rows.map((row) => ({ runId: row.runId, seq: row.seq, stream: row.stream === "stderr" ? "stderr" : "stdout", offset: Number(row.offset), ms: Number(row.ms), data: row.data }));
    }
    const rows = await this.db.runLogChunk.findMany({ where: { runId, seq: { gte: fromSeq } }, orderBy: { seq: "asc" }, take: limit });
    return rows.map(toRecord);
  }

  /**
   * Deletes the chunks of every run of a session (the session is being deleted: its logs go with it). Returns the
   * session's run ids, whose local copies the caller removes too, and how many chunks were deleted.
   */
  async deleteForSession(sessionId: string): Promise<{ runIds: string[]; chunks: number }> {
    const runIds = (await this.db.run.findMany({ where: { sessionId }, select: { id: true } })).map((r) => r.id);
    return { runIds, chunks: await this.deleteForRuns(runIds) };
  }

  /** Deletes the chunks of these runs (their logs are gone: the session's, or past retention); how many were deleted. */
  async deleteForRuns(runIds: string[]): Promise<number> {
    if (runIds.length === 0) return 0;
    if (this.pool) {
      const { rows } = await this.pool.query<{ n: string }>(
        `WITH gone AS (DELETE FROM "RunLogChunk" WHERE "runId" = ANY($1::text[]) RETURNING 1) SELECT count(*) AS "n" FROM gone`,
        [runIds],
      );
      return Number(rows[0]?.n ?? 0);
    }
    const { count } = await this.db.runLogChunk.deleteMany({ where: { runId: { in: runIds } } });
    return count;
  }

  /** How many chunks the run has stored (its next `seq`). */
  async count(runId: string): Promise<number> {
    const last = await this.db.runLogChunk.findFirst({ where: { runId }, orderBy: { seq: "desc" }, select: { seq: true } });
    return last ? last.seq + 1 : 0;
  }

  async close(): Promise<void> {
    await this.pool?.end();
  }
}
