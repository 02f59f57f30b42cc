import type { McpServerConfig, McpToolPinStatus } from "@berth/protocol";
import type { ToolAnnotations } from "@modelcontextprotocol/sdk/types.js";

/**
 * A registered server as the gateway needs it: the API config plus its id, who owns it (required for
 * `scope: "user"`), and optionally the one session it is attached to.
 */
export type McpServerEntry = McpServerConfig & {
  id: string;
  ownerUserId?: string;
  /** Attached to one session only (its tools are that session's). */
  sessionId?: string;
};

/**
 * Who is asking: the same shape as @berth/tools' ToolScope. `mcpServers` is the request's allowlist of
 * server names (or ids); undefined = every server the user may see.
 */
export interface McpScope {
  userId: string;
  sessionId: string;
  mcpServers?: readonly string[];
}

/**
 * Where a projected tool comes from, which is also its router layer:
 * - `user`: a `scope: "user"` server (any transport), named `user_{userId}_tool_{tool}`, owner only;
 * - `session`: a stdio server (it runs inside this session's container) or a server attached to the session;
 * - `global`: a `scope: "global"` http server the runner contacts for everyone.
 */
export type McpToolOrigin = "user" | "session" | "global";

/** One upstream tool as models see it through Berth. */
export interface ProjectedMcpTool {
  /** The projected name: sanitised, ≤ 64 characters, unique within the scope. */
  name: string;
  /** The name the upstream server knows it by. */
  upstreamName: string;
  description: string;
  inputSchema: Record<string, unknown>;
  /** The upstream's own outputSchema, shown by `gateway describe`. */
  outputSchema?: Record<string, unknown>;
  annotations?: ToolAnnotations;
  origin: McpToolOrigin;
  serverId: string;
  serverName: string;
  transport: McpServerConfig["transport"];
  /** sha256 of the canonical {description, inputSchema} offered now. */
  schemaHash: string;
  acceptedHash: string;
  /** `held` while the offered schema differs from the accepted one: admission must ask for every call. */
  status: McpToolPinStatus;
}

export type McpResolution =
  | { kind: "tool"; tool: ProjectedMcpTool }
  /** A `user_{other}_tool_…` name from another user: refused, never looked up. */
  | { kind: "forbidden"; message: string }
  | { kind: "none" };

/** A server that could not be reached while preparing a scope; its tools are simply absent. */
export interface UnavailableMcpServer {
  serverId: string;
  serverName: string;
  message: string;
}
