import type { RunRepository } from "@berth/db";
import type { SandboxDriver } from "@berth/sandbox";
import { AppError, type RunCancelResult } from "@berth/protocol";
import { authorize } from "../auth/authorize";
import { newId, type Principal } from "../auth/tokens";
import type { RunnerEvents } from "../events/runner-events";
import type { ActiveRuns } from "./active-runs";

/** How long a cancel waits for the run to end before answering (TERM, 1 s grace, KILL, then the receipt). */
const SETTLE_WAIT_MS = 5_000;

export interface CancelRunDeps {
  runs: RunRepository;
  driver: SandboxDriver;
  events: RunnerEvents;
  activeRuns: ActiveRuns;
}

/**
 * The IDE's Stop (`POST /api/runs/:id/cancel`, socket `run:cancel`): aborts a running run as a caller's own
 * abort would, so the agent kills its process group and the run ends `aborted` with a sealed receipt. A
 * background process's run (bash start) is stopped through the agent. The session's owner, an operator
 * or an admin may cancel; a run that is not running is a 409.
 */
export async function cancelRun(deps: CancelRunDeps, runId: string, principal: Principal, via: "http" | "socket"): Promise<RunCancelResult> {
  const found = await deps.runs.getWithOwner(runId);
  if (!found) throw new AppError({ code: "not_found", message: `Run not found: ${runId}` });
  const { run, ownerId } = found;
  authorize(principal, "run", "cancel", { id: run.id, ownerId });
  if (run.status !== "running") {
    throw new AppError({ code: "conflict", message: `Run ${run.id} is not running (status ${run.status}, outcome ${run.outcome ?? "none"}): nothing to cancel` });
  }
  const ended = waitForEnd(deps.events, run.id, SETTLE_WAIT_MS);
  let cancelled = false;
  try {
    cancelled = deps.activeRuns.cancel(run.id, { by: principal.name, via }) || (await stopProcess(deps, run.sessionId, run.kind, run.details));
  } finally {
    if (!cancelled) ended.cancel();
  }
  if (!cancelled) {
    // Running in the database but not in flight here: another runner's, a terminal (closed with terminal:close),
    // or a call that is just ending.
    throw new AppError({ code: "conflict", message: `Run ${run.id} (${run.kind}) is not running in this runner: nothing to cancel` });
  }
  const end = await ended.promise;
  return { runId: run.id, status: end ? "finished" : "running", outcome: end?.outcome ?? null };
}

async function stopProcess(deps: CancelRunDeps, sessionId: string, kind: string, details: Record<string, unknown>): Promise<boolean> {
  if (kind !== "process") return false;
  const processId = details.processId;
  if (typeof processId !== "string") return false;
  const result = await deps.driver.call(sessionId, { tool: "bash", args: { action: "stop", processId }, callId: newId("call") });
  return result.ok;
}

function waitForEnd(events: RunnerEvents, runId: string, timeoutMs: number): { promise: Promise<{ outcome: string | null } | null>; cancel: () => void } {
  let cancel = () => undefined as void;
  const promise = new Promise<{ outcome: string | null } | null>((resolve) => {
    const onStatus = (event: { runId: string; status: string; outcome: string | null }) => {
      if (event.runId !== runId || event.status === "running") return;
      finish({ outcome: event.outcome });
    };
    const timer = setTimeout(() => finish(null), timeoutMs);
    const finish = (value: { outcome: string | null } | null) => {
      clearTimeout(timer);
      events.off("run:status", onStatus);
      resolve(value);
    };
    cancel = () => finish(null);
    events.on("run:status", onStatus);
  });
  return { promise, cancel };
}
