import type { FastifyInstance } from "fastify";
import { createSessionMcpHandler } from "@berth/mcp";
import { AppError, type ActionClass } from "@berth/protocol";
import { authorize } from "../../auth/authorize";
import type { Principal } from "../../auth/tokens";
import type { SessionService } from "../../sessions/session-service";
import type { ToolService } from "../../tools/tool-service";
import { requirePrincipal } from "../build-server";

/**
 * `/mcp/:sessionId`: the session's direct tools over MCP Streamable HTTP, with the same bearer token and
 * the same admission as every other caller (MCP callers are agents: the loop guard applies).
 */
export function registerMcpRoutes(app: FastifyInstance, deps: { sessions: SessionService; tools: ToolService; approvalWaitMs: number }): void {
  const principals = new Map<string, Principal>();
  const handler = createSessionMcpHandler(
    {
      listTools: async ({ sessionId, userId }) =>
        deps.tools.surface(sessionId, principals.get(userId)!).map((tool) => ({ ...tool, actionClass: tool.actionClass as ActionClass })),
      callTool: async (call) => {
        const principal = principals.get(call.userId)!;
        const outcome = await deps.tools.call({
          sessionId: call.sessionId,
          principal,
          tool: call.tool,
          args: call.args,
          caller: "agent",
          via: "mcp",
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

  app.all<{ Params: { sessionId: string } }>("/mcp/:sessionId", async (request, reply) => {
    // Bearer only: the browser's cookie must not let a web page drive an agent endpoint.
    if (!request.headers.authorization?.startsWith("Bearer ")) {
      throw new AppError({ code: "unauthorized", message: "MCP needs Authorization: Bearer <token> (cookies are not accepted here)" });
    }
    const principal = requirePrincipal(request);
    // Before any MCP exchange: an unknown or hidden session is a 404, one the caller may not call tools in a 403.
    const session = await deps.sessions.get(request.params.sessionId, principal, (target) => authorize(principal, "toolCall", "call", target));
    principals.set(principal.userId, principal);
    reply.hijack();
    await handler(request.raw, reply.raw, request.body, { sessionId: session.id, principal });
  });
}
