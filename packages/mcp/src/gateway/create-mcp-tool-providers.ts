import type { McpScope, McpToolOrigin, ProjectedMcpTool } from "./gateway-types";
import type { McpClientGateway } from "./mcp-client-gateway";

/** Structurally a @berth/tools ToolProvider once `R` is its ResolvedTool. */
export interface McpLayerProvider<R> {
  readonly name: string;
  resolve(name: string, scope: McpScope): R | undefined;
  list(scope: McpScope): R[];
}

/**
 * The gateway as three router layers, so the router keeps the spec's precedence by the order it is
 * given them: built-in → `user` → local function tools → `session` → `global`. `toResolved` turns a
 * projected tool into the router's own type (a ToolSpec whose run calls `gateway.callTool`), which keeps
 * this package free of @berth/tools. Synchronous: call `gateway.prepare(scope)` first in each request.
 * A forged `user_{other}_tool_…` name resolves in no layer, so the router refuses it as unknown.
 */
export function createMcpToolProviders<R>(
  gateway: McpClientGateway,
  toResolved: (tool: ProjectedMcpTool, scope: McpScope) => R,
): Record<McpToolOrigin, McpLayerProvider<R>> {
  const layer = (origin: McpToolOrigin): McpLayerProvider<R> => ({
    name: `mcp:${origin}`,
    resolve(name, scope) {
      const found = gateway.resolve(name, scope);
      return found.kind === "tool" && found.tool.origin === origin ? toResolved(found.tool, scope) : undefined;
    },
    list(scope) {
      return gateway
        .listCachedTools(scope)
        .filter((tool) => tool.origin === origin)
        .map((tool) => toResolved(tool, scope));
    },
  });
  return { user: layer("user"), session: layer("session"), global: layer("global") };
}
