import type { ToolResult } from "@berth/protocol";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";

export interface McpCallOrigin {
  serverId: string;
  serverName: string;
  /** The upstream tool name. */
  tool: string;
}

/**
 * MCP result → ToolResult. Text parts become `output` (what a model reads); other parts are named, not
 * inlined (a model cannot read base64). `isError: true` is ok:false (docs/tools.md). Structured content
 * goes to `details`; the server used goes to `trace`, never to the model.
 */
export function fromCallToolResult(result: CallToolResult, origin: McpCallOrigin): ToolResult {
  const parts: string[] = [];
  for (const item of result.content ?? []) {
    switch (item.type) {
      case "text":
        parts.push(item.text);
        break;
      case "image":
      case "audio":
        parts.push(`[${item.type} ${item.mimeType}, ${Math.floor((item.data.length * 3) / 4)} bytes]`);
        break;
      case "resource":
        parts.push("text" in item.resource ? item.resource.text : `[resource ${item.resource.uri}]`);
        break;
      case "resource_link":
        parts.push(`[resource ${item.uri}]`);
        break;
    }
  }
  const structured = result.structuredContent;
  let output = parts.join("\n");
  if (!output && structured) output = JSON.stringify(structured);
  const trace = { mcpServer: origin.serverName, serverId: origin.serverId, tool: origin.tool };
  const details: Record<string, unknown> = { server: origin.serverName, tool: origin.tool };
  if (structured) details.structuredContent = structured;
  if (result.isError) {
    const message = output || `MCP tool ${origin.tool} on ${origin.serverName} failed without a message`;
    return {
      ok: false,
      output: message,
      details,
      trace,
      error: { code: "mcp_tool_error", message: message.slice(0, 2000) },
    };
  }
  return { ok: true, output, details, trace };
}
