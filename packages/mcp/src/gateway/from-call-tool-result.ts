import { ContentBlockSchema, contentBlockText } from "@berth/protocol";
import type { ContentBlock, ToolResult } from "@berth/protocol";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";

export interface McpCallOrigin {
  serverId: string;
  serverName: string;
  /** The upstream tool name. */
  tool: string;
}

/**
 * MCP result → ToolResult. The upstream's content blocks and structuredContent are kept exactly as sent
 * (`content`, `structuredContent`), so an MCP caller of Berth gets the image, the resource and the
 * annotations a direct connection would. `output` is the textual stand-in everyone else reads: text
 * parts as they are, other parts named (a model cannot read base64). `isError: true` is ok:false
 * (docs/tools.md). The server used goes to `trace`, never to the model.
 */
export function fromCallToolResult(result: CallToolResult, origin: McpCallOrigin): ToolResult {
  const content: ContentBlock[] = [];
  const parts: string[] = [];
  for (const item of result.content ?? []) {
    const parsed = ContentBlockSchema.safeParse(item);
    // A block of a kind this Berth does not know (a newer spec) is named instead, for every reader.
    if (!parsed.success) {
      const standIn = `[${String((item as { type?: unknown }).type)} content]`;
      content.push({ type: "text", text: standIn });
      parts.push(standIn);
      continue;
    }
    // The parsed block is loose (unknown fields kept), but pass the upstream object itself through.
    content.push(item as ContentBlock);
    parts.push(contentBlockText(parsed.data));
  }
  const structured = result.structuredContent;
  let output = parts.join("\n");
  if (!output && structured) output = JSON.stringify(structured);
  const trace = { mcpServer: origin.serverName, serverId: origin.serverId, tool: origin.tool };
  const details: Record<string, unknown> = { server: origin.serverName, tool: origin.tool };
  if (structured) details.structuredContent = structured;
  const mcp = {
    ...(content.length > 0 ? { content } : {}),
    ...(structured ? { structuredContent: structured } : {}),
  };
  if (result.isError) {
    const message = output || `MCP tool ${origin.tool} on ${origin.serverName} failed without a message`;
    return {
      ok: false,
      output: message,
      ...mcp,
      details,
      trace,
      error: { code: "mcp_tool_error", message: message.slice(0, 2000) },
    };
  }
  return { ok: true, output, ...mcp, details, trace };
}
