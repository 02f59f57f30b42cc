import type { ToolAnnotations } from "@modelcontextprotocol/sdk/types.js";
import { cutToolName, parseUserToolName, projectNames, sanitizeToolName, userToolName } from "../names";
import type { NameClaim } from "../names";
import type { McpServerEntry, McpToolOrigin, ProjectedMcpTool } from "./gateway-types";

/** A tool as its upstream server listed it, with the hash its pin is checked against. */
export interface UpstreamTool {
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
  outputSchema?: Record<string, unknown>;
  annotations?: ToolAnnotations;
  schemaHash: string;
}

const ORIGIN_ORDER: readonly McpToolOrigin[] = ["user", "session", "global"];

/** stdio servers and a session's own servers get a connection per session; the others one for all. */
export function isPerSession(entry: Pick<McpServerEntry, "transport" | "sessionId">): boolean {
  return entry.transport === "stdio" || entry.sessionId !== undefined;
}

export interface ProjectionInput {
  /** The servers the scope may see. */
  visible: readonly McpServerEntry[];
  /** The tools a server listed for this scope; undefined when it has no connection yet. */
  toolsOf: (entry: McpServerEntry) => readonly UpstreamTool[] | undefined;
  acceptedHashOf: (serverId: string, toolName: string) => string;
  reserved: Iterable<string>;
}

/**
 * The scope's MCP tools under the spec's name rules, in precedence order (user → session → global; servers and
 * tools by name), each with its pin status: a tool whose schema hash differs from the accepted one is held.
 */
export function projectMcpTools(input: ProjectionInput): ProjectedMcpTool[] {
  const visible = [...input.visible].sort((a, b) => cmp(a.name, b.name) || cmp(a.id, b.id));
  const rows: Array<{ entry: McpServerEntry; tool: UpstreamTool; origin: McpToolOrigin }> = [];
  const claims: NameClaim[] = [];
  for (const origin of ORIGIN_ORDER) {
    for (const entry of visible) {
      if (originOf(entry) !== origin) continue;
      const tools = input.toolsOf(entry);
      if (!tools) continue;
      for (const tool of [...tools].sort((a, b) => cmp(a.name, b.name))) {
        const wanted = wantedName(entry, tool.name, origin);
        if (wanted === undefined) continue;
        rows.push({ entry, tool, origin });
        claims.push({ id: `${entry.id}/${tool.name}`, name: wanted });
      }
    }
  }
  const names = projectNames(claims, { reserved: input.reserved });
  return rows.map(({ entry, tool, origin }, i) => {
    const acceptedHash = input.acceptedHashOf(entry.id, tool.name);
    return {
      name: names[i]?.name ?? tool.name,
      upstreamName: tool.name,
      description: tool.description,
      inputSchema: tool.inputSchema,
      ...(tool.outputSchema ? { outputSchema: tool.outputSchema } : {}),
      ...(tool.annotations ? { annotations: tool.annotations } : {}),
      origin,
      serverId: entry.id,
      serverName: entry.name,
      transport: entry.transport,
      schemaHash: tool.schemaHash,
      acceptedHash,
      status: tool.schemaHash === acceptedHash ? "accepted" : "held",
    };
  });
}

function originOf(entry: McpServerEntry): McpToolOrigin {
  if (entry.scope === "user") return "user";
  return isPerSession(entry) ? "session" : "global";
}

function wantedName(entry: McpServerEntry, toolName: string, origin: McpToolOrigin): string | undefined {
  if (origin === "user") {
    try {
      return userToolName(entry.ownerUserId ?? "", toolName);
    } catch {
      return undefined;
    }
  }
  const name = sanitizeToolName(toolName);
  // A shared tool must never look like someone's user tool (`user_1_tool_x`), or it would shadow or forge one.
  return parseUserToolName(name) ? cutToolName(`tool_${name}`) : name;
}

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
