import type { ToolResult } from "@berth/protocol";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { ParkedCall } from "./session-mcp-types";

/**
 * ToolResult → MCP result. Content blocks a result carries (an upstream image, resource or annotated
 * block) go out unchanged; otherwise `output` is the one text block a model reads. ok:false is `isError`
 * (a tool failure is a result, not a protocol error). structuredContent is an upstream's own, exactly as
 * it sent it, or else a success's `details`, which every built-in's outputSchema describes: a tool with
 * an outputSchema must send it (MCP), so it is never left out for size. Run and receipt ids go in
 * `_meta` so a client can link to them.
 */
export function toCallToolResult(result: ToolResult): CallToolResult {
  const text = result.output || (result.ok ? "" : (result.error?.message ?? "tool failed"));
  const meta: Record<string, unknown> = {};
  if (result.runId) meta["berth/runId"] = result.runId;
  if (result.receiptId) meta["berth/receiptId"] = result.receiptId;
  if (!result.ok && result.error) meta["berth/errorCode"] = result.error.code;
  const content = result.content?.length ? (result.content as CallToolResult["content"]) : [{ type: "text" as const, text }];
  const out: CallToolResult = { content };
  if (!result.ok) out.isError = true;
  // A failure's details describe the failure, not the outputSchema's result: only an upstream's own goes out.
  const structured = result.structuredContent ?? (result.ok ? result.details : undefined);
  if (structured) out.structuredContent = structured;
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
