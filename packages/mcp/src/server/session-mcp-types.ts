import type { ActionClass, ToolProgressListener, ToolResult } from "@berth/protocol";

/** One tool of the session's direct surface, as the runner's registry describes it. */
export interface SessionToolDescriptor {
  name: string;
  description: string;
  /** JSON schema of the arguments (generated from zod by the registry). */
  parameters: Record<string, unknown>;
  /** JSON schema of the structured result (MCP outputSchema), generated from the protocol's zod schema. */
  outputSchema?: Record<string, unknown>;
  actionClass: ActionClass;
  /** Calls other tools (gateway, dispatch): annotated by what it can reach (`SessionMcpDeps.reach`). */
  reachesOthers?: boolean;
}

/** Admission parked the call and no decision arrived within the wait. */
export interface ParkedCall {
  status: "parked";
  approvalId: string;
  /** The rendered call the operator reads. */
  text: string;
  /** sha256 of `text`; the operator sends it back with the decision. */
  sha256: string;
}

export function isParkedCall(value: unknown): value is ParkedCall {
  return typeof value === "object" && value !== null && (value as { status?: unknown }).status === "parked";
}

/** A request-level allowlist (`/mcp/<sessionId>?tools=read_file,grep&servers=<id>`): nothing outside is listed or callable. */
export interface McpRequestAllowlist {
  tools?: readonly string[];
  servers?: readonly string[];
}

export interface SessionToolQuery {
  sessionId: string;
  userId: string;
  /** The request's allowlist, when its URL named one. */
  allow?: McpRequestAllowlist;
}

export interface SessionToolCall extends SessionToolQuery {
  tool: string;
  args: Record<string, unknown>;
  caller: "agent";
  /** How long admission may hold a parked call open waiting for the operator's decision. */
  waitForApprovalMs: number;
  /** Aborted when the MCP client cancels the request or goes away. */
  signal: AbortSignal;
  /** Present when the client sent a progressToken: the tool's progress, sent throttled with that token. */
  onProgress?: ToolProgressListener;
  /** Tell the client at once that the call is parked (sent as a progress message when it asked for progress). */
  onParked?: (parked: ParkedCall) => void;
}

/**
 * What the runner implements for `/mcp/:sessionId`: the session's direct surface and calls through the
 * same admission as every other caller. Throw an `McpError` for a protocol fault (unknown session…);
 * anything else thrown becomes an internal error whose message is not shown to the client.
 */
export interface SessionMcpDeps {
  listTools(query: SessionToolQuery): Promise<readonly SessionToolDescriptor[]>;
  /**
   * The action classes the session's tools that call others can reach (its catalogue, less what its
   * autonomy denies), asked for tools/list only. Without it such a tool claims the worst case.
   */
  reach?(query: SessionToolQuery): Promise<readonly ActionClass[]>;
  callTool(call: SessionToolCall): Promise<ToolResult | ParkedCall>;
  /**
   * Why a tool of the session is not listed to this request (its allowlist, an active skill), so a call of it
   * is refused by name as a tool error rather than reported unknown; undefined when it is simply not a tool here.
   */
  hiddenReason?(query: SessionToolQuery, name: string): Promise<string | undefined>;
}

/** The authenticated caller; the runner's Principal fits. */
export interface McpPrincipal {
  userId: string;
}

export interface McpRequestContext<P extends McpPrincipal = McpPrincipal> {
  sessionId: string;
  principal: P;
  allow?: McpRequestAllowlist;
}
