import fs from "node:fs";
import path from "node:path";
import type { RecallPage, Refused } from "@berth/tools";
import type { RunLogStore, StoredRun } from "../cluster/run-log-store";
import { newId } from "../auth/tokens";
import { readLog } from "../runs/run-logs";
import { utf8Boundary } from "../runs/utf8-boundary";

const REF = /^ovf_[0-9a-f]{24}$/;
const RUN_REF = /^run_[0-9a-f]{24}$/;

interface OverflowMeta {
  sessionId: string;
  tool: string;
  createdAt: string;
}

/**
 * The full text of results the observation budget cut (`ovf_…` refs), kept under the data dir with the
 * session they belong to, and what `context recall` reads: those copies, or a run's stored log by its run id.
 * A ref of another session is refused by name, never reported unknown.
 */
export class ObservationOverflow {
  private readonly dir: string;

  constructor(
    private readonly deps: {
      dataDir: string;
      /** The run's row (its session and tool), or null when there is no such run. */
      runOf: (runId: string) => Promise<(StoredRun & { tool: string }) | null>;
      /** Makes this runner's files of a run hold its log (another runner's run, or one taken over at failover). */
      logs?: Pick<RunLogStore, "ready">;
    },
  ) {
    this.dir = path.join(deps.dataDir, "overflow");
  }

  async save(sessionId: string, tool: string, text: string): Promise<string> {
    const ref = newId("ovf");
    await fs.promises.mkdir(this.dir, { recursive: true, mode: 0o700 });
    // Body first, then the meta that makes the ref readable: a ref is never found half-written.
    await fs.promises.writeFile(path.join(this.dir, `${ref}.txt`), text, { mode: 0o600 });
    const meta: OverflowMeta = { sessionId, tool, createdAt: new Date().toISOString() };
    await fs.promises.writeFile(path.join(this.dir, `${ref}.json`), JSON.stringify(meta), { mode: 0o600 });
    return ref;
  }

  /**
   * Removes the copies of a session's cut results, when the session is removed: they are its workspace's
   * output, and nothing can recall them once it is gone. Returns how many it removed.
   */
  async forget(sessionId: string): Promise<number> {
    const names = await fs.promises.readdir(this.dir).catch(() => [] as string[]);
    let removed = 0;
    for (const name of names) {
      if (!name.endsWith(".json") || !REF.test(name.slice(0, -5))) continue;
      const meta = await fs.promises.readFile(path.join(this.dir, name), "utf8").then(
        (text) => JSON.parse(text) as OverflowMeta,
        () => undefined,
      );
      if (meta?.sessionId !== sessionId) continue;
      // The meta first: a ref whose body is going is no longer found, never read half-removed.
      await fs.promises.rm(path.join(this.dir, name), { force: true });
      await fs.promises.rm(path.join(this.dir, `${name.slice(0, -5)}.txt`), { force: true });
      removed += 1;
    }
    return removed;
  }

  async read(sessionId: string, ref: string, offset: number, maxBytes: number): Promise<RecallPage | Refused> {
    if (RUN_REF.test(ref)) return this.readRun(sessionId, ref, offset, maxBytes);
    if (!REF.test(ref))
      return {
        refused: `recall: not a ref: ${JSON.stringify(ref)} (a truncated result's notice names its ref=ovf_…; a run id reads that run's log)`,
        code: "invalid_arguments",
      };
    const meta = await fs.promises.readFile(path.join(this.dir, `${ref}.json`), "utf8").then(
      (text) => JSON.parse(text) as OverflowMeta,
      () => undefined,
    );
    if (!meta) return { refused: `recall: unknown ref: ${ref}`, code: "not_found" };
    if (meta.sessionId !== sessionId)
      return { refused: `recall: ref ${ref} belongs to another session`, code: "denied" };
    const file = path.join(this.dir, `${ref}.txt`);
    const size = (await fs.promises.stat(file)).size;
    const handle = await fs.promises.open(file, "r");
    try {
      const start = Math.min(offset, size);
      const buffer = Buffer.alloc(Math.min(maxBytes, size - start));
      await handle.read(buffer, 0, buffer.length, start);
      return page(ref, `overflow copy of a ${meta.tool} result`, start, size, buffer);
    } finally {
      await handle.close();
    }
  }

  private async readRun(
    sessionId: string,
    runId: string,
    offset: number,
    maxBytes: number,
  ): Promise<RecallPage | Refused> {
    const run = await this.deps.runOf(runId);
    if (!run) return { refused: `recall: run not found: ${runId}`, code: "not_found" };
    if (run.sessionId !== sessionId)
      return { refused: `recall: run ${runId} belongs to another session`, code: "denied" };
    await this.deps.logs?.ready(run);
    const { content, size } = readLog(this.deps.dataDir, runId, "combined", offset, maxBytes);
    return page(
      runId,
      `log of ${run.tool} run ${runId} (stdout and stderr as they arrived)`,
      Math.min(offset, size),
      size,
      content,
    );
  }
}

/** A page never ends inside a character: the next page starts where this one stopped. */
function page(ref: string, source: string, offset: number, totalBytes: number, bytes: Buffer): RecallPage {
  // Nothing whole fits when the page is shorter than the character at its start: show that one character.
  let whole = utf8Boundary(bytes);
  if (whole === 0 && bytes.length > 0) whole = bytes.length;
  const content = bytes.subarray(0, whole).toString("utf8");
  return { ref, source, offset, totalBytes, content, bytes: whole };
}
