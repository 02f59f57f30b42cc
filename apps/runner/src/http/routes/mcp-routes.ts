import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { createSessionMcpHandler } from "@berth/mcp";
import { AppError, type ActionClass } from "@berth/protocol";
import { authorize } from "../../auth/authorize";
import type { Principal } from "../../auth/tokens";
import type { SessionService } from "../../sessions/session-service";
import type { ToolService } from "../../tools/tool-service";
import { requirePrincipal } from "../build-server";
import { jsonRpcHttpError } from "../json-rpc-error";
import { parseRequestAllowlist } from "../../tools/tool-gate";

/**
 * `/mcp/:sessionId`: the session's direct tools over MCP Streamable HTTP, with the same bearer token and
 * the same admission as every other caller (MCP callers are agents: the loop guard applies).
 */
export function registerMcpRoutes(app: FastifyInstance, deps: { sessions: SessionService; tools: ToolService; approvalWaitMs: number }): void {
  const principals = new Map<string, Principal>();
  const handler = createSessionMcpHandler(
    {
      listTools: async ({ sessionId, userId, allow }) =>
        (await deps.tools.allowedSurface(sessionId, principals.get(userId)!, allow)).map((tool) => ({ ...tool, actionClass: tool.actionClass as ActionClass })),
      hiddenReason: async ({ sessionId, userId, allow }, name) => deps.tools.hiddenReason(sessionId, principals.get(userId)!, allow, name),
      reach: async ({ sessionId, userId }) => deps.tools.reach(sessionId, principals.get(userId)!),
      callTool: async (call) => {
        const principal = principals.get(call.userId)!;
        const outcome = await deps.tools.call({
          sessionId: call.sessionId,
          principal,
          tool: call.tool,
          args: call.args,
          caller: "agent",
          via: "mcp",
          ...(call.allow ? { allow: call.allow } : {}),
          waitMs: call.waitForApprovalMs,
          signal: call.signal,
          ...(call.onProgress ? { onProgress: call.onProgress } : {}),
        });
        return outcome.kind === "result" ? outcome.result : { status: "parked", approvalId: outcome.approvalId, text: outcome.text, sha256: outcome.sha256 };
      },
    },
    {
      approvalWaitMs: deps.approvalWaitMs,
      onError: (error) => app.log.error({ err: error }, "mcp request failed"),
    },
  );

  app.all<{ Params: { sessionId: string } }>("/mcp/:sessionId", { errorHandler: sendJsonRpcHttpError }, async (request, reply) => {
    // Bearer only: the browser's cookie must not let a web page drive an agent endpoint.
    if (!request.headers.authorization?.startsWith("Bearer ")) {
      throw new AppError({ code: "unauthorized", message: "MCP needs Authorization: Bearer <token> (cookies are not accepted here)" });
    }
    const principal = requirePrincipal(request);
    // Before any MCP exchange: an unknown or hidden session is a 404, one the caller may not call tools in a 403.
    const session = await deps.sessions.get(request.params.sessionId, principal, (target) => authorize(principal, "toolCall", "call", target));
    // Fastify read the stream already: an empty POST body would leave the SDK nothing to parse.
    if (request.method === "POST" && request.body === undefined) throw new JsonRpcParseError("the body is empty");
    principals.set(principal.userId, principal);
    reply.hijack();
    // `?tools=read_file,grep&servers=<id>`: this request lists and calls nothing outside them.
    const allow = parseRequestAllowlist(request.query as Record<string, unknown>);
    await handler(request.raw, reply.raw, request.body, { sessionId: session.id, principal, ...(allow ? { allow } : {}) });
  });
}

/** Body that is not JSON at all: JSON-RPC's own parse error, not a REST error body. */
class JsonRpcParseError extends Error {}

/**
 * Every refusal on /mcp in JSON-RPC form (json-rpc-error.ts): malformed JSON is -32700 with a 400; a 401 carries
 * `WWW-Authenticate: Bearer`; a 5xx is logged and never shows its internal message.
 */
export function sendJsonRpcHttpError(error: FastifyError | Error, request: FastifyRequest, reply: FastifyReply): void {
  const fastifyError = error as Partial<FastifyError>;
  const parse =
    error instanceof JsonRpcParseError ? error.message : fastifyError.code === "FST_ERR_CTP_INVALID_JSON_BODY" ? "the body is not valid JSON" : undefined;
  const { status, body, internal } = jsonRpcHttpError(error, parse);
  if (internal) request.log.error({ err: error }, "mcp request failed");
  if (status === 401) void reply.header("www-authenticate", 'Bearer realm="berth"');
  void reply.status(status).send(body);
}
