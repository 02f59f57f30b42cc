import type { IncomingMessage, ServerResponse } from "node:http";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { CallToolRequestSchema, CancelledNotificationSchema, ErrorCode, ListToolsRequestSchema, McpError } from "@modelcontextprotocol/sdk/types.js";
import type { CallToolResult, Tool } from "@modelcontextprotocol/sdk/types.js";
import type { ActionClass, ToolProgress } from "@berth/protocol";
import { JsonRpcFault } from "./json-rpc-fault";
import { createPrimingEventStore } from "./priming-event-store";
import { toolAnnotationsFor, toolAnnotationsForReach } from "./tool-annotations-for";
import { InFlightCalls } from "./in-flight-calls";
import { ProgressReporter } from "./progress-reporter";
import { parkedCallResult, toCallToolResult } from "./to-call-tool-result";
import { isParkedCall } from "./session-mcp-types";
import type {
  McpPrincipal,
  McpRequestContext,
  ParkedCall,
  SessionMcpDeps,
  SessionToolDescriptor,
} from "./session-mcp-types";

/** docs/api.md: BERTH_MCP_APPROVAL_WAIT_MS defaults to 120000. */
export const DEFAULT_MCP_APPROVAL_WAIT_MS = 120_000;
const DEFAULT_HEARTBEAT_MS = 10_000;

export interface SessionMcpHandlerOptions {
  /** How long a parked call waits for the operator before answering isError (BERTH_MCP_APPROVAL_WAIT_MS). */
  approvalWaitMs?: number;
  /**
   * While a call runs, a progress notification this often (only when the client sent a progressToken),
   * so clients that reset their timeout on progress survive a long approval wait.
   */
  heartbeatMs?: number;
  serverInfo?: { name: string; version: string };
  /** Internal failures (a dep threw something other than McpError); the client only sees "internal error". */
  onError?: (error: unknown, ctx: McpRequestContext) => void;
}

export type SessionMcpHandler<P extends McpPrincipal = McpPrincipal> = (
  req: IncomingMessage,
  res: ServerResponse,
  parsedBody: unknown,
  ctx: McpRequestContext<P>,
) => Promise<void>;

/**
 * `/mcp/:sessionId` over Streamable HTTP, stateless: every POST gets a fresh SDK Server + transport bound
 * to the authenticated principal and the session from the URL. Nothing lives between requests, so any
 * runner instance can answer any request (scale-out), auth is checked on every request, and there is no
 * MCP session map to leak. The cost: no standalone GET stream for server-initiated notifications, which
 * this surface does not need (the direct tool set is fixed; gateway tools are found through `gateway`).
 *
 * The caller authenticates first (the runner's onRequest hook, or `createMcpHttpListener`); pass the
 * already-parsed JSON body when a framework consumed the stream (Fastify), else `undefined`.
 */
export function createSessionMcpHandler<P extends McpPrincipal = McpPrincipal>(
  deps: SessionMcpDeps,
  opts: SessionMcpHandlerOptions = {},
): SessionMcpHandler<P> {
  const approvalWaitMs = opts.approvalWaitMs ?? DEFAULT_MCP_APPROVAL_WAIT_MS;
  const heartbeatMs = opts.heartbeatMs ?? DEFAULT_HEARTBEAT_MS;
  const serverInfo = opts.serverInfo ?? { name: "berth", version: "0.1.0" };
  const inFlight = new InFlightCalls();

  return async (req, res, parsedBody, ctx) => {
    if (req.method !== "POST") {
      // Stateless: no standalone SSE stream (GET) and no MCP session to delete (DELETE).
      res.writeHead(405, { "content-type": "application/json", allow: "POST" });
      res.end(
        JSON.stringify({
          jsonrpc: "2.0",
          error: { code: ErrorCode.ConnectionClosed, message: "Method not allowed: use POST" },
          id: null,
        }),
      );
      return;
    }
    const server = buildServer(deps, ctx, { approvalWaitMs, heartbeatMs, serverInfo, onError: opts.onError }, inFlight);
    // The event store only numbers events, so every SSE response starts with the spec's priming event.
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, eventStore: createPrimingEventStore() });
    res.on("close", () => {
      // Closing aborts in-flight handlers (their signal), so a parked wait stops when the client leaves.
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(req, res, parsedBody);
  };
}

function buildServer(
  deps: SessionMcpDeps,
  ctx: McpRequestContext,
  opts: Required<Omit<SessionMcpHandlerOptions, "onError">> & Pick<SessionMcpHandlerOptions, "onError">,
  inFlight: InFlightCalls,
): Server {
  const query = { sessionId: ctx.sessionId, userId: ctx.principal.userId, ...(ctx.allow ? { allow: ctx.allow } : {}) };
  const server = new Server(opts.serverInfo, {
    capabilities: { tools: {} },
    instructions:
      `Berth session ${ctx.sessionId}. Tools run in the session's sandbox through Berth's admission; ` +
      "a call that needs an operator's approval waits for it, then reports the approval id if none came. " +
      "Use the `gateway` tool to find and call more capabilities.",
  });

  const internal = (error: unknown, what: string): JsonRpcFault => {
    if (error instanceof JsonRpcFault) return error;
    if (error instanceof McpError) return JsonRpcFault.from(error);
    opts.onError?.(error, ctx);
    return new JsonRpcFault(ErrorCode.InternalError, `internal error while ${what}`);
  };

  const listSurface = async (): Promise<readonly SessionToolDescriptor[]> => {
    try {
      return await deps.listTools(query);
    } catch (error) {
      throw internal(error, "listing tools");
    }
  };

  server.setRequestHandler(ListToolsRequestSchema, async () => {
    const surface = await listSurface();
    let reach: readonly ActionClass[] | undefined;
    if (deps.reach && surface.some((t) => t.reachesOthers)) {
      try {
        reach = await deps.reach(query);
      } catch (error) {
        throw internal(error, "listing tools");
      }
    }
    return { tools: surface.map((tool) => toMcpTool(tool, reach)) };
  });

  server.setRequestHandler(CallToolRequestSchema, async (request, extra): Promise<CallToolResult> => {
    const { name } = request.params;
    // Only the listed (direct) surface is callable by name; anything else is reached through `gateway`.
    const surface = await listSurface();
    if (!surface.some((t) => t.name === name)) {
      // Kept out by the request's allowlist or an active skill: a tool error naming why, not "unknown".
      const hidden = await deps.hiddenReason?.(query, name).catch((error: unknown) => {
        throw internal(error, `calling ${name}`);
      });
      if (hidden) return { isError: true, content: [{ type: "text", text: hidden }], _meta: { "berth/errorCode": "denied" } };
      throw new JsonRpcFault(
        ErrorCode.InvalidParams,
        `Unknown tool: ${JSON.stringify(name)}; tools/list names the tools of this session`,
      );
    }

    const progressToken = request.params._meta?.progressToken;
    const progress = progressToken === undefined ? undefined : new ProgressReporter(progressToken, (n) => extra.sendNotification(n));
    const notify = (message: string): void => progress?.beat(message);
    let parkedMessage: string | undefined;
    // A sign of life only when nothing else went out lately (real progress keeps clients alive too).
    const heartbeat = setInterval(() => progress?.beat(parkedMessage ?? `running ${name}`, opts.heartbeatMs / 2), opts.heartbeatMs);
    heartbeat.unref();
    // The client's notifications/cancelled arrives in another POST (stateless): it finds the call here.
    const call = inFlight.track(query, extra.requestId, extra.signal);
    try {
      const result = await deps.callTool({
        ...query,
        tool: name,
        args: request.params.arguments ?? {},
        caller: "agent",
        waitForApprovalMs: opts.approvalWaitMs,
        signal: call.signal,
        ...(progress ? { onProgress: (update: ToolProgress) => progress.report(update) } : {}),
        onParked: (parked: ParkedCall) => {
          parkedMessage = `waiting for operator approval ${parked.approvalId}`;
          notify(parkedMessage);
        },
      });
      // Cancelled by the client: no response (the MCP spec); closing aborts the SDK's own signal, so it sends none.
      if (call.cancelledByClient()) await server.close();
      return isParkedCall(result) ? parkedCallResult(result, opts.approvalWaitMs) : toCallToolResult(result);
    } catch (error) {
      throw internal(error, `calling ${name}`);
    } finally {
      clearInterval(heartbeat);
      progress?.close();
      call.done();
    }
  });
  server.setNotificationHandler(CancelledNotificationSchema, (notification) => {
    inFlight.cancel(query, notification.params.requestId, notification.params.reason);
  });
  return server;
}

function toMcpTool(tool: SessionToolDescriptor, reach: readonly ActionClass[] | undefined): Tool {
  // MCP requires an object schema at the top; the registry's zod objects always are, but never send less.
  const inputSchema = (
    tool.parameters.type === "object" ? tool.parameters : { type: "object", properties: {} }
  ) as Tool["inputSchema"];
  // A tool that calls others is as powerful as what it reaches; not knowing that, claim the worst case.
  const annotations = tool.reachesOthers
    ? reach
      ? toolAnnotationsForReach(reach)
      : toolAnnotationsFor("unknown")
    : toolAnnotationsFor(tool.actionClass);
  return {
    name: tool.name,
    description: tool.description,
    inputSchema,
    ...(tool.outputSchema?.type === "object" ? { outputSchema: tool.outputSchema as Tool["outputSchema"] } : {}),
    annotations,
  };
}
