import crypto from "node:crypto";
import fs from "node:fs";
import type { Repositories, UnfinishedRun } from "@berth/db";
import type { SandboxDriver } from "@berth/sandbox";
import { AgentTerminalListResultSchema, AgentTerminalOkResultSchema, TerminalMethod, type BackgroundProcessInfo, type CallerKind, type ToolResult } from "@berth/protocol";
import type { ReceiptService } from "../receipts/receipt-service";
import { newId } from "../auth/tokens";
import { RunLogs } from "../runs/run-logs";
import type { FollowOnOutcome } from "./follow-on";

export interface RecoveryReport {
  /** Runs a previous runner left in flight, now ended as interrupted with a receipt. */
  interrupted: number;
  /** Terminals and background processes taken up at failover: their runs go on, on this runner. */
  followed: number;
  /** Work still running in an adopted container when the runner started, stopped there. */
  killed: { runs: number; processes: number };
  /** Interrupted runs that had no receipt (older runners sealed none), sealed now. */
  sealedLate: number;
}

/**
 * Whose leftovers these are. At start (`runner_restart`) the runner ends what it left itself; taking over a dead
 * runner's session (`runner_failover`, cluster/failover.ts) it ends what that runner left in that session alone.
 */
export interface RecoveryScope {
  reason: "runner_restart" | "runner_failover";
  /** The sessions whose runs and processes are this runner's to end; every session when omitted (one runner). */
  sessions?: ReadonlySet<string>;
  /** The runner the session was taken from, named in each cause (failover). */
  fromRunnerId?: string | null;
}

export interface RecoveryDeps {
  repos: Repositories;
  dataDir: string;
  driver: SandboxDriver;
  receipts: ReceiptService;
  /**
   * Makes a run's local log files complete from the shared log store before they are digested, when another
   * runner wrote them (the database log store); absent, the local files are what is sealed.
   */
  completeLogs?: (runId: string) => Promise<void>;
  /**
   * At failover only: takes up a terminal or background process that still runs in the adopted sandbox, so its run
   * goes on here (FollowOn) instead of ending; what it does not follow is ended as at a restart.
   */
  followOn?: (run: UnfinishedRun) => Promise<FollowOnOutcome>;
}

/**
 * What runs at start, after the sandbox driver has re-attached to the containers that still run (reconcile), and
 * at failover for one taken session. At failover a terminal or background process that still runs is followed on
 * (deps.followOn: the agent still holds what no runner stored). Anything else left in flight — every run at a
 * restart, whose tests pin that it ends — is ended, not resumed: what still runs of
 * it in the container is killed there (a run_script call aborted by its call id, a background process and any
 * process no run owns anymore stopped), the run is recorded as interrupted with a cause that says so, and a
 * receipt is sealed from its logs as stored (their sizes and sha256 read from the files).
 */
export async function recoverInterruptedRuns(
  deps: RecoveryDeps,
  scope: RecoveryScope = { reason: "runner_restart" },
): Promise<RecoveryReport> {
  const { repos, driver } = deps;
  const report: RecoveryReport = { interrupted: 0, followed: 0, killed: { runs: 0, processes: 0 }, sealedLate: 0 };
  const inScope = (sessionId: string) => !scope.sessions || scope.sessions.has(sessionId);
  const inFlight = (await repos.runs.listInFlight()).filter((run) => inScope(run.sessionId));
  const attached = (sessionId: string) => driver.get(sessionId)?.status === "ready";
  const { reason } = scope;
  const when = reason === "runner_restart" ? "at restart" : `at failover from runner ${scope.fromRunnerId ?? "(none)"}`;

  const followedProcesses = new Set<string>();
  for (const run of inFlight) {
    let cause = `${reason}: its sandbox is gone`;
    if (attached(run.sessionId)) {
      const processId = processIdOf(run.details);
      const terminalId = terminalIdOf(run);
      // A run_script or bash call cannot be followed: its caller waited on the runner that died.
      const follow = reason === "runner_failover" && (processId || terminalId) ? await deps.followOn?.(run) : undefined;
      if (follow?.followed) {
        if (processId) followedProcesses.add(processId);
        report.followed++;
        continue;
      }
      const killed = processId
        ? await stopProcess(driver, run.sessionId, processId)
        : terminalId
          ? await hangUp(driver, run.sessionId, terminalId)
          : await driver.abort(run.sessionId, run.id).catch(() => false);
      if (killed) report.killed.runs++;
      cause = killed ? `${reason}: killed in its sandbox ${when}` : `${reason}: it had ended in its sandbox, unseen`;
      if (follow && killed) cause += ` (not followed on: ${follow.why})`;
    }
    await endAndSeal(deps, run, cause);
    report.interrupted++;
  }

  // A background process whose run ended above, or whose start the crash cut before its run knew its id: no run
  // follows it, so it is stopped rather than left running unrecorded.
  const sessions = new Set(inFlight.map((run) => run.sessionId));
  for (const row of await repos.sessions.listLive()) if (inScope(row.id)) sessions.add(row.id);
  for (const sessionId of sessions) {
    if (!attached(sessionId)) continue;
    for (const info of await listProcesses(driver, sessionId)) {
      if (info.status === "RUNNING" && !followedProcesses.has(info.processId) && (await stopProcess(driver, sessionId, info.processId)))
        report.killed.processes++;
    }
  }

  // Runs interrupted by a runner from before this one sealed none: their receipt comes from what was stored.
  const unsealed = (await repos.runs.listUnsealedInterrupted()).filter((run) => inScope(run.sessionId));
  for (const run of unsealed) {
    await endAndSeal(deps, run, run.cause ?? reason);
    report.sealedLate++;
  }
  return report;
}

/** Ends the row as interrupted with its stored logs' sizes, then seals its receipt from the same digests. */
async function endAndSeal(deps: RecoveryDeps, run: UnfinishedRun, cause: string): Promise<void> {
  await deps.completeLogs?.(run.id);
  const logs = (["stdout", "stderr"] as const).map((name) => ({
    name,
    ...digestOf(RunLogs.pathFor(deps.dataDir, run.id, name)),
  }));
  const endedAt = run.endedAt ?? new Date();
  const durationMs = Math.max(0, endedAt.getTime() - run.startedAt.getTime());
  await deps.repos.runs.markInterrupted(run.id, {
    cause,
    endedAt,
    durationMs,
    stdoutBytes: logs[0]?.bytes ?? 0,
    stderrBytes: logs[1]?.bytes ?? 0,
  });
  await deps.receipts.sealRun({
    run: {
      id: run.id,
      sessionId: run.sessionId,
      userId: run.userId,
      tool: run.tool,
      actionClass: run.actionClass,
      caller: (run.caller as CallerKind | null) ?? null,
    },
    args: run.args,
    env: {},
    details: run.details,
    outcome: "interrupted",
    exitCode: null,
    startedAt: run.startedAt,
    endedAt,
    durationMs,
    logs,
    approvals: [],
    approvalWaitMs: null,
  });
}

/** Size and sha256 of a stored log, streamed (a log can be 100 MB); an absent log is empty. */
function digestOf(file: string): { sha256: string; bytes: number } {
  const hash = crypto.createHash("sha256");
  let bytes = 0;
  if (fs.existsSync(file)) {
    const fd = fs.openSync(file, "r");
    try {
      const chunk = Buffer.alloc(1 << 20);
      for (let n = fs.readSync(fd, chunk); n > 0; n = fs.readSync(fd, chunk)) {
        hash.update(chunk.subarray(0, n));
        bytes += n;
      }
    } finally {
      fs.closeSync(fd);
    }
  }
  return { sha256: hash.digest("hex"), bytes };
}

async function listProcesses(driver: SandboxDriver, sessionId: string): Promise<BackgroundProcessInfo[]> {
  const result = await callBash(driver, sessionId, { action: "list" });
  const list = (result?.details as { processes?: unknown } | undefined)?.processes;
  return Array.isArray(list) ? (list as BackgroundProcessInfo[]) : [];
}

/** Stops a background process; true when it was running. */
async function stopProcess(driver: SandboxDriver, sessionId: string, processId: string): Promise<boolean> {
  const before = (await listProcesses(driver, sessionId)).find((p) => p.processId === processId);
  if (before?.status !== "RUNNING") return false;
  const result = await callBash(driver, sessionId, { action: "stop", processId });
  return result?.ok === true;
}

function callBash(driver: SandboxDriver, sessionId: string, args: Record<string, unknown>): Promise<ToolResult | null> {
  return driver
    .call(sessionId, { tool: "bash", args, callId: newId("call"), env: {} }, { timeoutMs: 10_000 })
    .catch(() => null);
}

/** A terminal's shell that is not followed on is hung up, its transcript as stored. True when it ran. */
async function hangUp(driver: SandboxDriver, sessionId: string, terminalId: string): Promise<boolean> {
  const { terminals } = await driver
    .request(sessionId, TerminalMethod.List, {}, AgentTerminalListResultSchema, { timeoutMs: 10_000 })
    .catch(() => ({ terminals: [] }));
  if (!terminals.some((t) => t.terminalId === terminalId && t.exitCode === null)) return false;
  return driver
    .request(sessionId, TerminalMethod.Close, { terminalId }, AgentTerminalOkResultSchema, { timeoutMs: 10_000 })
    .then(
      () => true,
      () => false,
    );
}

function terminalIdOf(run: UnfinishedRun): string | null {
  return run.tool === "terminal" && typeof run.details.terminalId === "string" ? run.details.terminalId : null;
}

function processIdOf(details: Record<string, unknown>): string | null {
  return typeof details.processId === "string" ? details.processId : null;
}
