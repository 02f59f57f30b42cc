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

type RunLogChunkRow = Awaited<ReturnType<Database["runLogChunk"]["findUniqueOrThrow"]>>;

function toRecord(row: RunLogChunkRow): RunLogChunkRecord {
  const data = Buffer.from(row.data.buffer, row.data.byteOffset, row.data.byteLength);
  return { runId: row.runId, seq: row.seq, stream: row.stream === "stderr" ? "stderr" : "stdout", offset: Number(row.offset), ms: row.at.getTime(), data };
}

/**
 * Run logs in the database (the `database` log store): chunks keyed by run and sequence number, written by the
 * run's runner before it shows them and read by any runner that serves the log.
 */
export class RunLogChunkRepository {
  constructor(private readonly db: Database) {}

  /**
   * Stores a batch of chunks in one statement: all of them or none. A multi-row INSERT with bound values, not
   * createMany: Prisma's query compiler costs a fraction of a millisecond of CPU a row, on the runner's one thread,
   * between the chunks of the output it is streaming.
   */
  async append(chunks: RunLogChunkRecord[]): Promise<void> {
    if (chunks.length === 0) return;
    const values = chunks.map((c) => Prisma.sql`(${c.runId}, ${c.seq}, ${c.stream}, ${BigInt(c.offset)}, ${new Date(c.ms)}, ${c.data})`);
    await this.db.$executeRaw`INSERT INTO "RunLogChunk" ("runId", "seq", "stream", "offset", "at", "data") VALUES ${Prisma.join(values)}`;
  }

  /** Up to `limit` chunks of a run from `fromSeq` on, in order. */
  async list(runId: string, fromSeq: number, limit: number): Promise<RunLogChunkRecord[]> {
    const rows = await this.db.runLogChunk.findMany({ where: { runId, seq: { gte: fromSeq } }, orderBy: { seq: "asc" }, take: limit });
    return rows.map(toRecord);
  }

  /** How many chunks the run has stored (its next `seq`). */
  async count(runId: string): Promise<number> {
    const last = await this.db.runLogChunk.findFirst({ where: { runId }, orderBy: { seq: "desc" }, select: { seq: true } });
    return last ? last.seq + 1 : 0;
  }
}
