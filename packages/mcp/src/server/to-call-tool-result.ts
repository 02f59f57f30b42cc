import type { ToolResult } from "@berth/protocol";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { ParkedCall } from "./session-mcp-types";

// `details` is UI data; above this size it would only cost the client tokens twice.
const MAX_STRUCTURED_BYTES = 16 * 1024;

/**
 * ToolResult → MCP result: `output` is the text a model reads; ok:false is `isError` (a tool failure is
 * a result, not a protocol error). Small `details` ride along as structuredContent; run and receipt ids
 * go in `_meta` so a client can link to them.
 */
export function toCallToolResult(result: ToolResult): CallToolResult {
  const text = result.output || (result.ok ? "" : (result.error?.message ?? "tool failed"));
  const meta: Record<string, unknown> = {};
  if (result.runId) meta["berth/runId"] = result.runId;
  if (result.receiptId) meta["berth/receiptId"] = result.receiptId;
  if (!result.ok && result.error) meta["berth/errorCode"] = result.error.code;
  const out: CallToolResult = { content: [{ type: "text", text }] };
  if (!result.ok) out.isError = true;
  if (result.ok && result.details && Buffer.byteLength(JSON.stringify(result.details)) <= MAX_STRUCTURED_BYTES) {
    out.structuredContent = result.details;
  }
  if (Object.keys(meta).length > 0) out._meta = meta;
  return out;
}

/** A call still parked when the wait ran out: isError naming the approval id, so the agent can say what it waits for. */
export function parkedCallResult(parked: ParkedCall, waitedMs: number): CallToolResult {
  const seconds = Math.round(waitedMs / 1000);
  return {
    isError: true,
    content: [
      {
        type: "text",
        text:
          `Not run: waiting for operator approval ${parked.approvalId} (no decision within ${seconds}s). ` +
          `An operator must approve ${parked.approvalId} (sha256 ${parked.sha256}) in Berth before this call can run.`,
      },
    ],
    _meta: {
      "berth/approvalId": parked.approvalId,
      "berth/approvalSha256": parked.sha256,
      "berth/errorCode": "approval_pending",
    },
  };
}
