import fs from "node:fs";
import path from "node:path";
import type { RunLogChunkRecord } from "@berth/db";
import { utf8Boundary } from "@berth/protocol";
import type { RunnerEvents } from "../events/runner-events";
import { LOG_TIMES_FILE } from "../runs/run-log-times";
import { RunLogs } from "../runs/run-logs";

type CarriedStream = "stdout" | "stderr" | "combined";

/**
 * This runner's copy of a log another runner writes: the same files (stdout.log, stderr.log, times.idx with the
 * chunks' own arrival times), appended chunk by chunk through RunLogs, so readers here see only what is on disk
 * and each chunk is told to this runner's followers (the run:output and process:output events the socket layer
 * fans out) once it is, exactly as the writing runner tells its own.
 */
export class LocalLogCopy {
  private readonly logs: RunLogs;
  /** Bytes of a UTF-8 character cut at a chunk's end, held until the next chunk completes it. */
  private readonly carry = new Map<CarriedStream, Buffer>();

  constructor(
    dataDir: string,
    private readonly run: { id: string; sessionId: string },
    private readonly events: RunnerEvents,
    /** Set once the run is known to be a background process's: its combined log goes to process followers. */
    public processId: string | null,
  ) {
    const dir = RunLogs.dirFor(dataDir, run.id);
    // A copy starts from the first chunk: what an earlier copy left (a runner stopped mid-copy) is not trusted.
    for (const file of ["stdout.log", "stderr.log", LOG_TIMES_FILE]) fs.rmSync(path.join(dir, file), { force: true });
    // Queued: a copy catches up in bursts of stored chunks (up to a page of them from the database at once), which
    // written at once would hold the event loop for the whole burst.
    this.logs = new RunLogs(dir, Date.now, undefined, { queued: true });
  }

  /** Appends the next chunk of the run, in order. */
  apply(chunk: RunLogChunkRecord): void {
    const { stream, data } = chunk;
    this.logs.append(
      stream,
      data,
      ({ offset, combinedOffset }) => {
        const out = this.whole(stream, offset, data);
        if (out.bytes) this.events.emit("run:output", { runId: this.run.id, sessionId: this.run.sessionId, stream, ...out });
        if (!this.processId) return;
        const combined = this.whole("combined", combinedOffset, data);
        if (combined.bytes) this.events.emit("process:output", { sessionId: this.run.sessionId, processId: this.processId, stream: "combined", ...combined });
      },
      chunk.ms,
    );
  }

  /** Settles once every chunk applied is on disk and told. */
  close(): Promise<void> {
    return this.logs.close();
  }

  /** The chunk (after the carried bytes) cut to whole characters; what is cut off is carried to the next. */
  private whole(stream: CarriedStream, offset: number, data: Buffer): { offset: number; data: string; bytes: number; raw: Buffer } {
    const pending = this.carry.get(stream);
    const full = pending?.length ? Buffer.concat([pending, data]) : data;
    const end = utf8Boundary(full);
    this.carry.set(stream, Buffer.from(full.subarray(end)));
    return { offset: offset - (pending?.length ?? 0), data: full.toString("utf8", 0, end), bytes: end, raw: full.subarray(0, end) };
  }
}
