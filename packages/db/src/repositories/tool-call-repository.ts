import { redactSecrets, type ToolCallView } from "@berth/protocol";
import type { Database } from "../create-database";

export interface ToolCallRecordInput {
  id: string;
  sessionId: string;
  userId: string;
  caller: string;
  via: string | null;
  tool: string;
  argsSha256: string;
  /** Stored redacted: secret-looking values and `secrets` masked (redactSecrets). */
  args: unknown;
  secrets: string[];
  actionClass: string;
  verdict: string;
  approvalId: string | null;
  ok: boolean | null;
  errorCode: string | null;
  runId: string | null;
  durationMs: number | null;
  trace: unknown;
}

/** Tool calls: one row per call, what was asked and how admission judged it. */
export class ToolCallRepository {
  constructor(private readonly db: Database) {}

  async record(input: ToolCallRecordInput): Promise<void> {
    const { args, secrets, trace, ...fields } = input;
    await this.db.toolCall.create({
      data: { ...fields, argsJson: JSON.stringify(redactSecrets(args, secrets)), traceJson: trace === undefined ? null : JSON.stringify(trace) },
    });
  }

  /** Oldest first. */
  async listForRun(runId: string): Promise<ToolCallView[]> {
    const rows = await this.db.toolCall.findMany({ where: { runId }, orderBy: { createdAt: "asc" } });
    return rows.map((c) => ({
      id: c.id,
      tool: c.tool,
      caller: c.caller,
      via: c.via,
      actionClass: c.actionClass,
      verdict: c.verdict,
      approvalId: c.approvalId,
      ok: c.ok,
      errorCode: c.errorCode,
      durationMs: c.durationMs,
      createdAt: c.createdAt.toISOString(),
    }));
  }
}
