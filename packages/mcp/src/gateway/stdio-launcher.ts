import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { McpServerEntry } from "./gateway-types";

export interface StdioLaunchRequest {
  server: McpServerEntry & { transport: "stdio"; command: string };
  /** The session whose container runs the server. */
  sessionId: string;
  userId: string;
}

/**
 * Starts a stdio MCP server and returns an MCP Transport over its stdin/stdout. The runner implements it
 * by starting `command args` INSIDE the session's own container through the in-container agent (never on
 * the host): newline-delimited JSON-RPC, exactly what the SDK's stdio framing speaks. `close()` on the
 * transport must stop the process. Tests use `createHostStdioLauncher` from "@berth/mcp/test".
 */
export interface StdioLauncher {
  launch(request: StdioLaunchRequest): Promise<Transport>;
}
