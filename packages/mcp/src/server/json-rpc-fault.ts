import type { McpError } from "@modelcontextprotocol/sdk/types.js";

/**
 * A JSON-RPC error as the SDK's server sends it (`code`, `message`, `data` of what a handler throws).
 * Thrown instead of McpError, whose message already reads `MCP error <code>: …`: the client's own
 * McpError adds that prefix again (`MCP error -32602: MCP error -32602: Unknown tool`).
 */
export class JsonRpcFault extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
    this.name = "JsonRpcFault";
  }

  /** The same fault with McpError's prefix taken off its message. */
  static from(error: McpError): JsonRpcFault {
    return new JsonRpcFault(error.code, error.message.replace(/^MCP error -?\d+: /, ""), error.data);
  }
}

