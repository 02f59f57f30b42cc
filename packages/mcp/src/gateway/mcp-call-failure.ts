import { toolFailure } from "@berth/protocol";
import type { ToolResult } from "@berth/protocol";
import { ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";
import type { ProjectedMcpTool } from "./gateway-types";
import { UpstreamUnavailableError, messageOf } from "./upstream-connection";

/** MCP arguments are an object; weak models send it as a JSON string. Returns the object or an error message. */
export function normaliseMcpArgs(args: unknown): Record<string, unknown> | string {
  let value: unknown = args ?? {};
  if (typeof value === "string") {
    const text = value;
    try {
      value = JSON.parse(text || "{}");
    } catch {
      return `args must be a JSON object, got a string that is not JSON: ${JSON.stringify(text.slice(0, 80))}`;
    }
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    return `args must be a JSON object, got ${Array.isArray(value) ? "an array" : value === null ? "null" : typeof value}`;
  }
  return value as Record<string, unknown>;
}

/** A held tool (its schema changed since it was accepted) is not called until an operator says so. */
export function heldToolFailure(tool: ProjectedMcpTool): ToolResult {
  return toolFailure(
    "mcp_tool_held",
    `MCP tool ${tool.name} changed since it was accepted (schema sha256 ${tool.schemaHash}, accepted ${tool.acceptedHash || "none"}); ` +
      "an operator must accept the new version or approve this call",
    {
      serverId: tool.serverId,
      toolName: tool.upstreamName,
      schemaHash: tool.schemaHash,
      acceptedHash: tool.acceptedHash,
    },
  );
}

/** A tools/call that threw, as the ToolResult a caller sees: aborted, timeout, refused or unavailable. */
export function callFailure(
  error: unknown,
  tool: ProjectedMcpTool,
  timeoutMs: number,
  signal?: AbortSignal,
): ToolResult {
  if (signal?.aborted) return toolFailure("aborted", `call of MCP tool ${tool.name} was aborted`);
  if (error instanceof McpError && error.code === ErrorCode.RequestTimeout) {
    // The SDK names the total limit when progress kept the call alive past it.
    const total = (error.data as { maxTotalTimeout?: unknown } | undefined)?.maxTotalTimeout;
    const limit =
      typeof total === "number"
        ? `${total} ms in all (progress kept restarting the ${timeoutMs} ms timeout)`
        : `${timeoutMs} ms`;
    return toolFailure(
      "mcp_timeout",
      `MCP server ${tool.serverName} did not answer tools/call ${tool.upstreamName} within ${limit}`,
    );
  }
  if (error instanceof McpError && error.code !== ErrorCode.ConnectionClosed) {
    return toolFailure(
      "mcp_error",
      `MCP server ${tool.serverName} refused tools/call ${tool.upstreamName}: ${error.message}`,
    );
  }
  if (error instanceof UpstreamUnavailableError) return toolFailure("mcp_unavailable", error.message);
  return toolFailure(
    "mcp_unavailable",
    `MCP server ${tool.serverName} failed during tools/call ${tool.upstreamName}: ${messageOf(error)}`,
  );
}
