import type { Repositories, UnfinishedRun } from "@berth/db";
import type { SandboxDriver, SessionOutputEvent, SessionProcessStatusEvent } from "@berth/sandbox";
import type { CallerKind, RunOutcome, ToolResult } from "@berth/protocol";
import { runImagesOf } from "@berth/protocol";
import type { RunnerEvents } from "../events/runner-events";
import type { ReceiptService } from "../receipts/receipt-service";
import { newId } from "../auth/tokens";
import { RunLogs, type RunLogSink } from "./run-logs";
import { SecretMaskStream } from "./secret-mask-stream";
import { utf8Boundary } from "./utf8-boundary";

/** `mcp`: a call of an upstream MCP tool through the gateway (its result text is the run's stdout). `terminal`: a PTY
 * opened in the IDE (its transcript is the stdout log; apps/runner/src/terminals). */
export type RunKind = "run_script" | "bash" | "process" | "dispatch" | "mcp" | "terminal";

export interface StartRunInput {
  sessionId: string;
  userId: string;
  tool: string;
  kind: RunKind;
  args: unknown;
  actionClass: string;
  /** Declared env of the call; only its keys reach the run record and the receipt, and its values are masked in the logs. */
  env?: Record<string, string>;
  /** Other values known to be secret (tokens, MCP header values): masked in the row and the logs too. */
  secrets?: string[];
  approvals?: { id: string; approvedBy: string; approvedAt: string; sha256: string }[];
  approvalWaitMs?: number | null;
  /** Who started it: recorded on the run and in its receipt. */
  caller?: CallerKind;
}

interface ActiveRun {
  id: string;
  /** Bytes of a UTF-8 character cut at a chunk's end, held until the next chunk completes it. */
  carry: Map<"stdout" | "stderr" | "combined", Buffer>;
  input: StartRunInput;
  logs: RunLogs;
  /** Known secret values masked as the logs are written, per stream. */
  masks: Record<"stdout" | "stderr", SecretMaskStream>;
  startedAt: Date;
  processId?: string;
  /** The row's insert, which runs beside the tool instead of before it; bindProcess waits for it, the writes behind the reply go `after` it. */
  created: Promise<void>;
  /**
   * A background process taken up at failover: its output is placed by the agent's offsets (the stored log ends
   * at one, the agent's own log fills what no runner saw), and until that splice is done live events are held.
   */
  adopted?: {
    held: (SessionOutputEvent | SessionProcessStatusEvent)[] | null;
    /** Bytes of each stream the agent has given this run so far, before masking: where its next offset should be. */
    raw: { stdout: number; stderr: number };
  };
}

/** What a finished tool result says about a run's outcome. */
function outcomeOf(kind: RunKind, result: ToolResult): { outcome: RunOutcome; exitCode: number | null } {
  const details = (result.details ?? {}) as Record<string, unknown>;
  const exitCode = typeof details.exitCode === "number" ? details.exitCode : null;
  if (kind === "run_script" && typeof details.outcome === "string") return { outcome: details.outcome as RunOutcome, exitCode };
  if (details.timedOut === true) return { outcome: "timed-out", exitCode };
  if (result.error?.code === "aborted") return { outcome: "aborted", exitCode };
  if (kind === "terminal") {
    const code = result.error?.code;
    return { outcome: code === "aborted" ? "aborted" : code === "interrupted" ? "interrupted" : exitCode === 0 ? "succeeded" : "failed", exitCode };
  }
  if (kind === "mcp") return { outcome: result.error?.code === "mcp_timeout" ? "timed-out" : result.ok ? "succeeded" : "failed", exitCode: null };
  // A plan's run (compete, review, background): it succeeded when the plan did; it never spawns a process itself.
  if (kind === "dispatch") return { outcome: result.error?.code === "aborted" ? "aborted" : result.ok ? "succeeded" : "failed", exitCode: null };
  if (!result.ok && exitCode === null) return { outcome: "spawn-failed", exitCode };
  return { outcome: result.ok && (exitCode === 0 || exitCode === null) ? "succeeded" : "failed", exitCode };
}

/**
 * Every execution is a run: a row in the database, full logs on disk (written before they are
 * broadcast) and, when it ends, a sealed receipt. Background processes are runs that end when the
 * process does.
 */
export class RunService {
  private readonly active = new Map<string, ActiveRun>();
  private readonly byProcess = new Map<string, string>();
  /** Background runs just ended `aborted` by their agent, per session: a shutting-down agent stops them too. */
  private readonly recentlyStopped = new Map<string, { runId: string; at: number; closed: Promise<unknown> }[]>();

  constructor(
    private readonly deps: {
      repos: Repositories;
      dataDir: string;
      events: RunnerEvents;
      driver: SandboxDriver;
      receipts: ReceiptService;
      /** The database log store's sink for a run (stored before shown; `resume`: taken up at failover); none: the files only. */
      logSink?: (runId: string, resume?: boolean) => RunLogSink | undefined;
    },
  ) {
    deps.driver.on("output", (event) => this.onOutput(event));
    deps.driver.on("process.status", (event) => void this.onProcessStatus(event));
  }

  async start(input: StartRunInput): Promise<string> {
    const id = newId("run");
    const logs = new RunLogs(RunLogs.dirFor(this.deps.dataDir, id), Date.now, this.deps.logSink?.(id));
    const startedAt = new Date();
    // Written behind (WriteBehind.later): reads of runs wait for it, and so does everything else this run writes
    // behind (`after` its id); it starts once the call's request is on its way to the agent.
    const created = this.deps.repos.writes.later(() => this.deps.repos.runs.create({
      id,
      sessionId: input.sessionId,
      userId: input.userId,
      tool: input.tool,
      kind: input.kind,
      args: input.args,
      secrets: knownSecrets(input),
      caller: input.caller ?? null,
      startedAt,
    }), { after: id });
    const masks = { stdout: new SecretMaskStream(knownSecrets(input)), stderr: new SecretMaskStream(knownSecrets(input)) };
    this.active.set(id, { id, input, logs, masks, startedAt, carry: new Map(), created });
    this.deps.events.emit("run:status", { runId: id, sessionId: input.sessionId, status: "running", outcome: null, exitCode: null });
    return id;
  }

  /**
   * Failover (docs/scale-out.md): takes up a terminal's or a background process's run another runner started,
   * its logs continued after what they hold here (completed from the log store first). A process's live output
   * is held until `splice` gives what no runner saw; its output is placed by the agent's offsets.
   */
  adopt(run: UnfinishedRun, kind: "terminal" | "process"): void {
    const processId = typeof run.details.processId === "string" ? run.details.processId : undefined;
    const logs = RunLogs.resume(RunLogs.dirFor(this.deps.dataDir, run.id), Date.now, this.deps.logSink?.(run.id, true));
    const input: StartRunInput = { sessionId: run.sessionId, userId: run.userId, tool: run.tool, kind, args: run.args, actionClass: run.actionClass, ...(run.caller ? { caller: run.caller as CallerKind } : {}) };
    const masks = { stdout: new SecretMaskStream([]), stderr: new SecretMaskStream([]) };
    const adopted = kind === "process" ? { adopted: { held: [], raw: { stdout: logs.size("stdout"), stderr: logs.size("stderr") } } } : {};
    this.active.set(run.id, { id: run.id, input, logs, masks, startedAt: run.startedAt, carry: new Map(), created: Promise.resolve(), ...(processId ? { processId } : {}), ...adopted });
    if (processId) this.byProcess.set(processId, run.id);
  }

  /**
   * An adopted process's output that no runner saw (read from the agent's own log, after the stored end), then
   * the live events held meanwhile, each placed by its offset: no gap, no duplicate. Live events go straight on.
   * `masked`: the unseen output is masked already, by masks that have taken every byte the agent gave so far
   * (`raw` of each stream); they mask what comes next.
   */
  async splice(
    runId: string,
    unseen: { stream: "stdout" | "stderr"; data: Buffer }[],
    masked?: { masks: Record<"stdout" | "stderr", SecretMaskStream>; raw: { stdout: number; stderr: number } },
  ): Promise<void> {
    const run = this.active.get(runId);
    const held = run?.adopted?.held;
    if (!run?.adopted || !held) return;
    if (masked) {
      run.masks = masked.masks;
      run.adopted.raw = { ...masked.raw };
      for (const piece of unseen) this.write(run, piece.stream, piece.data);
    } else {
      for (const piece of unseen) {
        this.appendOutput(runId, piece.stream, piece.data);
        run.adopted.raw[piece.stream] += piece.data.length;
      }
    }
    run.adopted.held = null;
    for (const event of held) {
      if ("data" in event) this.onOutput(event);
      else await this.onProcessStatus(event);
    }
  }

  /** A run taken up that cannot be followed after all: let go (its row is ended by recovery), nothing written. */
  async release(runId: string): Promise<void> {
    const run = this.active.get(runId);
    if (!run) return;
    this.active.delete(runId);
    if (run.processId) this.byProcess.delete(run.processId);
    await run.logs.close();
  }

  /** Settles once the run's output so far is written (and stored): a terminal's pump reads on after it. */
  written(runId: string): Promise<void> {
    return this.active.get(runId)?.logs.flushed() ?? Promise.resolve();
  }

  /** Appends output to the run's logs (known secrets masked), then broadcasts it with its byte offset. */
  appendOutput(runId: string, stream: "stdout" | "stderr", data: Buffer): void {
    const run = this.active.get(runId);
    if (!run || data.length === 0) return;
    this.write(run, stream, run.masks[stream].push(data));
  }

  private write(run: ActiveRun, stream: "stdout" | "stderr", data: Buffer): void {
    if (data.length === 0) return;
    const runId = run.id;
    const processId = run.processId;
    // Told once on disk, in order (RunLogs): the carry of a cut character passes from one chunk to the next.
    run.logs.append(stream, data, ({ offset, combinedOffset }) => {
      const out = wholeCharacters(run, stream, offset, data);
      if (out.bytes) this.deps.events.emit("run:output", { runId, sessionId: run.input.sessionId, stream, ...out });
      if (processId) {
        const combined = wholeCharacters(run, "combined", combinedOffset, data);
        if (combined.bytes) this.deps.events.emit("process:output", { sessionId: run.input.sessionId, processId, stream: "combined", ...combined });
      }
    });
  }

  /** Binds a started background process to its run; the run ends when the process does. */
  async bindProcess(runId: string, processId: string): Promise<void> {
    const run = this.active.get(runId);
    if (!run) return;
    run.processId = processId;
    this.byProcess.set(processId, runId);
    // Stored at once so a reloaded page (or a restarted runner) finds the process's run.
    // `masked`: its log is not the bytes the agent's offsets count; failover masks the agent's log again (follow-on.ts).
    await this.setDetails(runId, { processId, ...(run.masks.stdout.active ? { masked: true } : {}) });
  }

  /**
   * Replaces a run's stored details (a process id, a terminal's id and name) once its row is there: the row is
   * written behind the call that started the run, so an update made before it landed would find no row.
   */
  async setDetails(runId: string, details: Record<string, unknown>): Promise<void> {
    await this.active.get(runId)?.created;
    await this.deps.repos.runs.setDetails(runId, details);
  }

  runIdOfProcess(processId: string): string | undefined {
    return this.byProcess.get(processId);
  }

  /**
   * Ends a run with the tool's result: logs written out, then the row updated and the receipt sealed behind the reply
   * (the receipt's id is fixed now; reads of runs and receipts wait for both).
   */
  async finish(runId: string, result: ToolResult): Promise<{ receiptId: string | null }> {
    const run = this.active.get(runId);
    if (!run) return { receiptId: null };
    const images = runImagesOf(result.content);
    // An upstream MCP tool's images are kept with the run, so its page shows them (they are not in the log).
    const details = { ...(result.details ?? {}), ...(images.length ? { images } : {}) } as Record<string, unknown>;
    // bash exec returns its streams in the result; write them if nothing was streamed live. An MCP tool's
    // answer is its stdout, a failed call's answer (or reason) its stderr.
    if (run.logs.size("stdout") === 0 && run.logs.size("stderr") === 0) {
      const streams =
        run.input.kind === "mcp"
          ? { [result.ok ? "stdout" : "stderr"]: result.output }
          : { stdout: details.stdout, stderr: details.stderr };
      for (const stream of ["stdout", "stderr"] as const) {
        const text = streams[stream];
        if (typeof text === "string" && text) this.appendOutput(runId, stream, Buffer.from(text));
      }
    }
    const { outcome, exitCode } = outcomeOf(run.input.kind, result);
    const { receiptId } = this.close(run, { outcome, exitCode, details, cause: result.ok ? null : (result.error?.code ?? null) });
    // Every byte on disk and announced before the reply, so a log read after it is whole (a reader of a log still
    // closing reads what was announced: all of it). Closing the files waits for nobody, unless a sink stores the log
    // elsewhere too: its end is what readers on other runners wait for, so the reply waits for that.
    await (this.deps.logSink ? run.logs.closed : run.logs.flushed());
    return { receiptId };
  }

  /** `written` settles once the row's end and the receipt are stored: for callers that write after them. */
  private close(
    run: ActiveRun,
    end: { outcome: RunOutcome; exitCode: number | null; details: Record<string, unknown>; cause: string | null },
  ): { receiptId: string; written: () => Promise<void> } {
    // What the masks held back (a possible secret's start) is written before the logs are sealed.
    for (const stream of ["stdout", "stderr"] as const) this.write(run, stream, run.masks[stream].flush());
    this.active.delete(run.id);
    if (run.processId) this.byProcess.delete(run.processId);
    const endedAt = new Date();
    const durationMs = endedAt.getTime() - run.startedAt.getTime();
    const logDigests = run.logs.digests();
    const logsClosed = run.logs.close();
    // After the reply and the run's row it ends (WriteBehind.later, which reports a failure): a read waits for it.
    void this.deps.repos.writes.later(() => this.deps.repos.runs.finish(run.id, {
      status: end.outcome === "interrupted" ? "interrupted" : "finished",
      outcome: end.outcome,
      cause: end.cause,
      exitCode: end.exitCode,
      details: { ...trimDetails(end.details), ...(run.processId ? { processId: run.processId } : {}) },
      stdoutBytes: logDigests[0]?.bytes ?? 0,
      stderrBytes: logDigests[1]?.bytes ?? 0,
      endedAt,
      durationMs,
    }), { after: run.id });
    const receiptId = this.deps.receipts.sealLater({
      run: { id: run.id, sessionId: run.input.sessionId, userId: run.input.userId, tool: run.input.tool, actionClass: run.input.actionClass, caller: run.input.caller ?? null },
      args: run.input.args,
      env: run.input.env ?? {},
      details: end.details,
      outcome: end.outcome,
      exitCode: end.exitCode,
      startedAt: run.startedAt,
      endedAt,
      durationMs,
      logs: logDigests,
      approvals: run.input.approvals ?? [],
      approvalWaitMs: run.input.approvalWaitMs ?? null,
    });
    // After the last output event: that follows the last write.
    void logsClosed.then(() =>
      this.deps.events.emit("run:status", { runId: run.id, sessionId: run.input.sessionId, status: "finished", outcome: end.outcome, exitCode: end.exitCode }),
    );
    // Asked for, not made here: settled() starts every write held behind a reply at once, which on a call's reply path
    // (finish) would put the run's row, its end and its receipt back before the reply.
    return { receiptId, written: () => Promise.all([logsClosed, this.deps.repos.writes.settled()]).then(() => undefined) };
  }

  private onOutput(event: SessionOutputEvent): void {
    const runId = event.callId ?? (event.processId ? this.byProcess.get(event.processId) : undefined);
    if (!runId) return;
    const run = this.active.get(runId);
    if (!run?.adopted) return this.appendOutput(runId, event.stream, event.data);
    if (run.adopted.held) return void run.adopted.held.push(event);
    // What it has already (by the agent's offset, before masking) is skipped.
    const { raw } = run.adopted;
    const skip = raw[event.stream] - event.offset;
    if (skip >= event.data.length) return;
    raw[event.stream] = event.offset + event.data.length;
    this.appendOutput(runId, event.stream, skip > 0 ? event.data.subarray(skip) : event.data);
  }

  private async onProcessStatus(event: SessionProcessStatusEvent): Promise<void> {
    const held = this.active.get(this.byProcess.get(event.processId) ?? "")?.adopted?.held;
    if (held) return void held.push(event);
    this.deps.events.emit("process:status", { sessionId: event.sessionId, processId: event.processId, status: event.status, exitCode: event.exitCode });
    if (event.status === "RUNNING") return;
    const runId = this.byProcess.get(event.processId);
    const run = runId ? this.active.get(runId) : undefined;
    if (!run) return;
    const outcome: RunOutcome = event.status === "STOPPED" ? "aborted" : event.exitCode === 0 ? "succeeded" : "failed";
    const closed = this.close(run, { outcome, exitCode: event.exitCode, details: { processId: event.processId, status: event.status }, cause: null }).written();
    if (outcome === "aborted") this.noteStopped(event.sessionId, run.id, closed);
    await closed;
  }

  /**
   * Runs of a session whose sandbox died end as interrupted, with the sandbox's cause. An agent told to stop
   * (`docker stop`, a dockerd going down) stops its processes before it exits, so their runs ended `aborted`
   * moments before the runner learnt why: they keep that outcome (their receipts are sealed) and get the cause.
   */
  async interruptSession(sessionId: string, cause: string): Promise<void> {
    const why = sandboxStoppedCause(cause);
    const since = Date.now() - STOP_EXPLAINED_MS;
    const stopped = (this.recentlyStopped.get(sessionId) ?? []).filter((s) => s.at >= since);
    this.recentlyStopped.delete(sessionId);
    if (stopped.length) {
      // Their rows are written first, so the cause is not overwritten by the close still under way.
      await Promise.all(stopped.map((s) => s.closed.catch(() => undefined)));
      const ids = stopped.map((s) => s.runId);
      await this.deps.repos.runs.explainAborted(ids, why);
    }
    for (const run of [...this.active.values()]) {
      if (run.input.sessionId !== sessionId) continue;
      await this.close(run, { outcome: "interrupted", exitCode: null, details: {}, cause: why }).written();
    }
  }

  private noteStopped(sessionId: string, runId: string, closed: Promise<unknown>): void {
    const since = Date.now() - STOP_EXPLAINED_MS;
    // Old entries go on every note, so sessions deleted without an unexpected end leave nothing behind.
    for (const [id, entries] of this.recentlyStopped) {
      const kept = entries.filter((s) => s.at >= since);
      if (kept.length) this.recentlyStopped.set(id, kept);
      else this.recentlyStopped.delete(id);
    }
    this.recentlyStopped.set(sessionId, [...(this.recentlyStopped.get(sessionId) ?? []), { runId, at: Date.now(), closed }]);
  }

  /** Ends every active run as interrupted (runner shutdown). */
  async interruptAll(cause: string): Promise<void> {
    for (const run of [...this.active.values()]) await this.close(run, { outcome: "interrupted", exitCode: null, details: {}, cause }).written();
  }
}

/**
 * How long before a sandbox's end an agent-stopped run counts as stopped by that end: the agent's SIGTERM to
 * SIGKILL grace for its process groups, plus the driver's wait for the container's exit and OOM events.
 */
const STOP_EXPLAINED_MS = 10_000;

/** The cause a run gets when its session's sandbox ends under it, e.g. `sandbox_stopped: the container stopped (exited)`. */
export function sandboxStoppedCause(terminationCause: string): string {
  return `sandbox_stopped: the container stopped (${terminationCause})`;
}

/** Splits a chunk (with any carried bytes before it) into whole UTF-8 characters and a new carry. */
function wholeCharacters(run: ActiveRun, stream: "stdout" | "stderr" | "combined", offset: number, data: Buffer): { offset: number; data: string; bytes: number; raw: Buffer } {
  const pending = run.carry.get(stream);
  const full = pending?.length ? Buffer.concat([pending, data]) : data;
  const start = offset - (pending?.length ?? 0);
  const end = utf8Boundary(full);
  run.carry.set(stream, Buffer.from(full.subarray(end)));
  const raw = full.subarray(0, end);
  return { offset: start, data: raw.toString("utf8"), bytes: end, raw };
}

/** What a run knows is secret: its env values and any secrets its caller named. */
function knownSecrets(input: StartRunInput): string[] {
  return [...Object.values(input.env ?? {}), ...(input.secrets ?? [])];
}

/** Tails are in the logs already; the row keeps the structured rest. */
function trimDetails(details: Record<string, unknown>): Record<string, unknown> {
  const { stdout: _stdout, stderr: _stderr, stdoutTail: _a, stderrTail: _b, content: _c, ...rest } = details;
  return rest;
}
