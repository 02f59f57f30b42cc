import type { FastifyInstance } from "fastify";
import { McpServerConfigSchema, McpToolAcceptRouteBodySchema } from "@berth/protocol";
import type { McpServersService } from "../../mcp/mcp-servers-service";
import { requirePrincipal } from "../build-server";
import { parse } from "../validate";

/**
 * `/api/mcp-servers` (docs/api.md): register, list and remove MCP servers, read a server's tool pins and
 * accept a changed tool schema. Header values never leave the runner: responses carry `headerNames`.
 */
export function registerMcpServerRoutes(app: FastifyInstance, deps: { mcpServers: McpServersService }): void {
  app.get("/api/mcp-servers", async (request) => ({ servers: await deps.mcpServers.list(requirePrincipal(request)) }));

  app.post("/api/mcp-servers", async (request, reply) => {
    const principal = requirePrincipal(request);
    const body = parse(McpServerConfigSchema, request.body);
    return reply.status(201).send(await deps.mcpServers.create(body, principal));
  });

  app.delete<{ Params: { id: string } }>("/api/mcp-servers/:id", async (request, reply) => {
    await deps.mcpServers.remove(request.params.id, requirePrincipal(request));
    return reply.status(204).send();
  });

  app.get<{ Params: { id: string } }>("/api/mcp-servers/:id/pins", async (request) => ({
    pins: await deps.mcpServers.pins(request.params.id, requirePrincipal(request)),
  }));

  app.post<{ Params: { id: string } }>("/api/mcp-servers/:id/accept", async (request) => {
    const principal = requirePrincipal(request);
    const body = parse(McpToolAcceptRouteBodySchema, request.body);
    return deps.mcpServers.acceptTool(request.params.id, body, principal);
  });
}
