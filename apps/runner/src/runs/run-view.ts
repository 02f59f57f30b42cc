import type { Database } from "@berth/db";
import type { RunView } from "@berth/protocol";

export type RunRow = Awaited<ReturnType<Database["run"]["findUniqueOrThrow"]>> & { receipt?: { id: string } | null };

/** A run row as the API shows it (RunViewSchema): the one mapping, for the routes, the share page and `monitor`. */
export function runView(run: RunRow): RunView {
  return {
    id: run.id,
    sessionId: run.sessionId,
    userId: run.userId,
    caller: run.caller,
    tool: run.tool,
    kind: run.kind,
    status: run.status,
    outcome: run.outcome,
    cause: run.cause,
    exitCode: run.exitCode,
    args: JSON.parse(run.argsJson) as unknown,
    details: JSON.parse(run.detailsJson) as unknown,
    stdoutBytes: run.stdoutBytes,
    stderrBytes: run.stderrBytes,
    startedAt: run.startedAt.toISOString(),
    endedAt: run.endedAt?.toISOString() ?? null,
    durationMs: run.durationMs,
    receiptId: run.receipt?.id ?? null,
  };
}
