import { actionClassOfMcpTool } from "@berth/mcp";
import type { McpClientGateway, McpScope, ProjectedMcpTool } from "@berth/mcp";
import { builtinSpecOf, type ResolvedTool, type ToolSpec } from "@berth/tools";
import { z } from "zod";

const McpArgsSchema = z.record(z.string(), z.unknown());

/**
 * A projected MCP tool as the router's ResolvedTool: its spec shows the upstream description and input
 * schema, and runs through the gateway. Admission has already judged the call (a held tool always asks,
 * see ToolService.registryFor), so the gateway is told to allow a held tool here.
 */
export function toResolvedMcpTool(gateway: McpClientGateway, tool: ProjectedMcpTool, scope: McpScope): ResolvedTool {
  const actionClass = actionClassOfMcpTool(tool);
  const spec: ToolSpec<Record<string, unknown>> = {
    name: tool.name,
    description: tool.description || `${tool.upstreamName} on MCP server ${tool.serverName}`,
    argsSchema: McpArgsSchema,
    parameters: tool.inputSchema,
    ...(tool.outputSchema ? { outputSchema: tool.outputSchema } : {}),
    ...(tool.annotations ? { annotations: tool.annotations } : {}),
    // Upstream tools may have side effects we cannot see: never run two of them at once in a plan.
    executionMode: "sequential",
    classify: () => ({ actionClass, recognised: false, alwaysAsk: false, reasons: [`MCP tool ${tool.upstreamName} of server ${tool.serverName} (${tool.transport})`] }),
    // A call that may change something outside (every MCP tool, unless an operator trusts its read-only
    // annotations) is an execution: a run with its result as the log and a sealed receipt, as bash is.
    createsRun: () => actionClass !== "read",
    runKind: () => "mcp",
    run: (args, ctx) =>
      gateway.callTool(tool.name, args, scope, {
        allowHeld: true,
        ...(ctx.signal ? { signal: ctx.signal } : {}),
        ...(ctx.onProgress ? { onProgress: ctx.onProgress } : {}),
      }),
  };
  return { spec, kind: "mcp", origin: tool.serverName, originId: tool.serverId, ...(tool.status === "held" ? { held: true } : {}) };
}

/**
 * Whether a call of `tool` needs the scope's MCP servers connected and listed first. Plain built-ins do
 * not, so a slow or broken MCP server never delays read_file or bash; a built-in that reaches other tools
 * by name (its spec's reachesOthers: gateway, dispatch) may reach MCP tools.
 */
export function needsMcpTools(tool: string, builtinNames: ReadonlySet<string>): boolean {
  return !builtinNames.has(tool) || builtinSpecOf(tool)?.reachesOthers === true;
}
