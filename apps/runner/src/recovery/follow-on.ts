import fs from "node:fs";
import type { UnfinishedRun } from "@berth/db";
import type { SandboxDriver } from "@berth/sandbox";
import { BASH_MAX_LOG_LIMIT, BashLogsDetailsSchema, type BackgroundProcessInfo } from "@berth/protocol";
import { newId } from "../auth/tokens";
import { combinedPieces } from "../runs/run-log-times";
import { RunLogs } from "../runs/run-logs";
import type { RunService } from "../runs/run-service";
import { SecretMaskStream } from "../runs/secret-mask-stream";
import { advance, logStart, splitUnseen, type ProcessLogPosition } from "./process-log-splice";

/** Whether a run taken over at failover is followed on; why not, when it is not. */
export type FollowOnOutcome = { followed: true } | { followed: false; why: string };

/** Most output a process may have printed unseen (while no runner was attached) and still be followed on. */
const MAX_UNSEEN_BYTES = 64 * 1024 * 1024;

/**
 * Failover's follow-on (docs/scale-out.md): a terminal or background process the dead runner was following is
 * taken up where its stored log ends, from what the agent still holds, instead of being ended. A process: the
 * agent keeps its whole log, so what no runner stored is read from it after the stored end and the live output
 * goes on from there by offset. A terminal: TerminalService.adopt, from the agent's unread buffer.
 */
export class FollowOn {
  constructor(
    private readonly deps: {
      dataDir: string;
      driver: Pick<SandboxDriver, "call">;
      runs: Pick<RunService, "adopt" | "splice" | "release">;
      terminals: { adopt(run: UnfinishedRun): Promise<FollowOnOutcome> };
      /** The session's declared env (what its runs mask), or null when the session is unknown. */
      sessionEnv: (sessionId: string) => Promise<Record<string, string> | null>;
      /** Makes the run's local log files what the shared log store holds (another runner wrote them). */
      completeLogs: (runId: string) => Promise<void>;
    },
  ) {}

  async follow(run: UnfinishedRun): Promise<FollowOnOutcome> {
    await this.deps.completeLogs(run.id);
    if (run.tool === "terminal" && typeof run.details.terminalId === "string") return this.deps.terminals.adopt(run);
    const processId = run.details.processId;
    if (typeof processId === "string") return this.followProcess(run, processId);
    return { followed: false, why: "its caller was on that runner" };
  }

  private async followProcess(run: UnfinishedRun, processId: string): Promise<FollowOnOutcome> {
    // A background process has no env of its own: what its run masks is its session's declared env, kept on the row
    // (asked whatever the run's `masked` says: a run started by a runner from before it has none).
    const env = await this.deps.sessionEnv(run.sessionId);
    if (env === null) return { followed: false, why: "its session's env is unknown" };
    const secrets = run.details.masked === true || Object.keys(env).length > 0 ? env : undefined;
    if (secrets && (run.args as { env?: unknown }).env !== undefined) return { followed: false, why: "it masks an env of its call's own, which is not stored" };
    // A masked log is not the bytes the agent counts offsets in: the agent's whole log is read and masked again.
    const stored = secrets ? logStart() : this.storedPosition(run.id);
    // From here its live output and status are held, so none falls between the log read below and the live stream.
    this.deps.runs.adopt(run, "process");
    const unseen = await this.readUnseen(run.sessionId, processId, stored).catch((error: unknown) => ({ ok: false as const, why: (error as Error).message }));
    const remasked = unseen.ok && secrets ? this.remask(run.id, unseen.pieces, Object.values(secrets)) : undefined;
    const refused = !unseen.ok ? unseen.why : remasked && !remasked.ok ? remasked.why : null;
    if (refused !== null) {
      await this.deps.runs.release(run.id);
      return { followed: false, why: refused };
    }
    if (remasked?.ok) await this.deps.runs.splice(run.id, remasked.unseen, { masks: remasked.masks, raw: remasked.raw });
    else if (unseen.ok) await this.deps.runs.splice(run.id, unseen.pieces);
    return { followed: true };
  }

  /**
   * A masked run: the agent's whole log masked as its first runner masked it as it came. The stored log must be
   * the start of that; what follows is what no runner stored, and the masks go on from where they are.
   */
  private remask(runId: string, pieces: { stream: "stdout" | "stderr"; data: Buffer }[], secrets: string[]) {
    const masks = { stdout: new SecretMaskStream(secrets), stderr: new SecretMaskStream(secrets) };
    const raw = { stdout: 0, stderr: 0 };
    const out: Record<"stdout" | "stderr", Buffer[]> = { stdout: [], stderr: [] };
    for (const piece of pieces) {
      out[piece.stream].push(masks[piece.stream].push(piece.data));
      raw[piece.stream] += piece.data.length;
    }
    const unseen: { stream: "stdout" | "stderr"; data: Buffer }[] = [];
    for (const stream of ["stdout", "stderr"] as const) {
      const all = Buffer.concat(out[stream]);
      const file = RunLogs.pathFor(this.deps.dataDir, runId, stream);
      const stored = fs.existsSync(file) ? fs.readFileSync(file) : Buffer.alloc(0);
      if (!all.subarray(0, stored.length).equals(stored)) return { ok: false as const, why: `its ${stream} as stored is not the start of its sandbox's log masked again` };
      if (all.length > stored.length) unseen.push({ stream, data: all.subarray(stored.length) });
    }
    return { ok: true as const, masks, raw, unseen };
  }

  /** Where the run's stored logs end in the agent's log: the stored chunks replayed in arrival order. */
  private storedPosition(runId: string): ProcessLogPosition {
    const dir = RunLogs.dirFor(this.deps.dataDir, runId);
    const sizes = { stdout: fileSize(RunLogs.pathFor(this.deps.dataDir, runId, "stdout")), stderr: fileSize(RunLogs.pathFor(this.deps.dataDir, runId, "stderr")) };
    let at = logStart();
    const block = Buffer.alloc(1 << 20);
    const fds = new Map<string, number>();
    try {
      for (const piece of combinedPieces(dir, 0, sizes.stdout + sizes.stderr, sizes)) {
        let fd = fds.get(piece.stream);
        if (fd === undefined) fds.set(piece.stream, (fd = fs.openSync(RunLogs.pathFor(this.deps.dataDir, runId, piece.stream), "r")));
        for (let done = 0; done < piece.length; ) {
          const n = fs.readSync(fd, block, 0, Math.min(block.length, piece.length - done), piece.offset + done);
          if (n === 0) break;
          at = advance(at, piece.stream, block.subarray(0, n));
          done += n;
        }
      }
    } finally {
      for (const fd of fds.values()) fs.closeSync(fd);
    }
    return at;
  }

  /** The agent's log of the process from `from` to its end, split into its streams; only while it still runs. */
  private async readUnseen(sessionId: string, processId: string, from: ProcessLogPosition) {
    const list = await this.bash(sessionId, { action: "list" });
    const processes = (list?.details as { processes?: BackgroundProcessInfo[] } | undefined)?.processes ?? [];
    const status = processes.find((p) => p.processId === processId)?.status;
    if (status !== "RUNNING") return { ok: false as const, why: status ? `it had ended in its sandbox, unseen (${status})` : "its sandbox has no such process" };
    const parts: Buffer[] = [];
    let offset = from.bytes;
    for (;;) {
      const result = await this.bash(sessionId, { action: "logs", processId, offset, limit: BASH_MAX_LOG_LIMIT });
      const logs = BashLogsDetailsSchema.safeParse(result?.details);
      if (!logs.success) return { ok: false as const, why: `reading its log in the sandbox failed: ${result?.output ?? "no answer"}` };
      const { content, offset: start, nextOffset, truncated } = logs.data;
      const data = Buffer.from(content, "utf8");
      // Bytes that are not UTF-8 come back replaced: the log could not be copied exactly.
      if (start !== offset || data.length !== nextOffset - start) return { ok: false as const, why: `its log in the sandbox is not UTF-8 past byte ${offset}` };
      parts.push(data);
      offset = nextOffset;
      if (offset - from.bytes > MAX_UNSEEN_BYTES) return { ok: false as const, why: `it printed more than ${MAX_UNSEEN_BYTES} bytes while no runner was attached` };
      if (!truncated || data.length === 0) break;
    }
    return splitUnseen(from, Buffer.concat(parts));
  }

  private bash(sessionId: string, args: Record<string, unknown>) {
    return this.deps.driver.call(sessionId, { tool: "bash", args, callId: newId("call"), env: {} }, { timeoutMs: 10_000 });
  }
}

function fileSize(file: string): number {
  try {
    return fs.statSync(file).size;
  } catch {
    return 0;
  }
}
