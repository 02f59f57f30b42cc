import type { FastifyInstance } from "fastify";
import { authorize } from "../../auth/authorize";
import { CreateSessionBodySchema, ToolCallQuerySchema, UpdateSessionBodySchema, type SessionDetail } from "@berth/protocol";
import type { SessionService } from "../../sessions/session-service";
import type { ToolService } from "../../tools/tool-service";
import { requirePrincipal } from "../build-server";
import { parse } from "../validate";
import { answerToolCall } from "../answer-tool-call";
import { parseRequestAllowlist } from "../../tools/tool-gate";

export function registerSessionRoutes(app: FastifyInstance, deps: { sessions: SessionService; tools: ToolService }): void {
  app.post("/api/sessions", async (request, reply) => {
    const principal = requirePrincipal(request);
    const body = parse(CreateSessionBodySchema, request.body);
    const session = await deps.sessions.create(body, principal);
    return reply.status(201).send(session);
  });

  app.get("/api/sessions", async (request) => ({ sessions: await deps.sessions.list(requirePrincipal(request)) }));

  app.get<{ Params: { id: string } }>("/api/sessions/:id", async (request): Promise<SessionDetail> => {
    const { env, ...session } = await deps.sessions.get(request.params.id, requirePrincipal(request));
    // Declared env values are secrets: only their names leave the runner.
    return { ...session, envKeys: Object.keys(env) };
  });

  app.patch<{ Params: { id: string } }>("/api/sessions/:id", async (request) => {
    const body = parse(UpdateSessionBodySchema, request.body);
    return deps.sessions.setAutonomy(request.params.id, body.autonomy, requirePrincipal(request));
  });

  app.delete<{ Params: { id: string } }>("/api/sessions/:id", async (request, reply) => {
    await deps.sessions.remove(request.params.id, requirePrincipal(request));
    return reply.status(204).send();
  });

  app.post<{ Params: { id: string } }>("/api/sessions/:id/restart", async (request) => deps.sessions.restart(request.params.id, requirePrincipal(request)));

  app.get<{ Params: { id: string } }>("/api/sessions/:id/tools", async (request) => {
    const principal = requirePrincipal(request);
    const session = await deps.sessions.get(request.params.id, principal, (target) => authorize(principal, "toolCall", "list", target));
    // `?tools=…&servers=…` shows the surface as a request with that allowlist sees it.
    return { tools: await deps.tools.allowedSurface(session.id, principal, parseRequestAllowlist(parse(ToolCallQuerySchema, request.query, "query"))) };
  });

  app.post<{ Params: { id: string; tool: string } }>("/api/sessions/:id/tools/:tool", async (request, reply) => {
    const { status, body } = await answerToolCall(deps.tools, {
      principal: requirePrincipal(request),
      sessionId: request.params.id,
      tool: request.params.tool,
      body: request.body,
      query: request.query,
      response: reply.raw,
    });
    return reply.status(status).send(body);
  });
}
