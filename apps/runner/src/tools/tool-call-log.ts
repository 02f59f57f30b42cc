import type { Repositories } from "@berth/db";
import type { AdmissionResult } from "@berth/tools";
import type { ToolCallInput } from "./tool-call-input";

/** How one call ended, as its row records it (an absent field is stored as null). */
export interface CallRecord {
  id: string;
  verdict: string;
  ok?: boolean | undefined;
  errorCode?: string | undefined;
  runId?: string | undefined;
  approvalId?: string | undefined;
  durationMs?: number | undefined;
  trace?: unknown;
}

/**
 * One row per call: what was asked (redacted, the session's env values masked), how admission judged it, and how
 * it ended. Written after the reply, batched with other calls' (ToolCallRepository.recordLater): the row tells the
 * caller nothing it was not told already, and the run it belongs to (its receipt) is recorded on its own. Reads of
 * the rows wait for the batch.
 */
export class ToolCallLog {
  constructor(private readonly repos: Pick<Repositories, "toolCalls">) {}

  record(input: ToolCallInput, admission: AdmissionResult, fields: CallRecord, knownSecrets: string[] = []): void {
    this.repos.toolCalls.recordLater({
      id: fields.id,
      sessionId: input.sessionId,
      userId: input.principal.userId,
      caller: input.caller,
      via: input.via,
      tool: admission.tool,
      // Read when the row is written: a call that needed no approval or loop guard renders its text only then.
      argsSha256: admission,
      args: admission.args,
      secrets: knownSecrets,
      actionClass: admission.actionClass,
      verdict: fields.verdict,
      approvalId: fields.approvalId ?? null,
      ok: fields.ok ?? null,
      errorCode: fields.errorCode ?? null,
      runId: fields.runId ?? null,
      durationMs: fields.durationMs ?? null,
      trace: fields.trace,
    });
  }
}
