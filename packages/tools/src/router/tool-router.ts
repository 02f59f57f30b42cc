import type { AnyToolSpec } from "../registry/tool-spec";
import { placementOf } from "../registry/tool-placement";

export type ToolKind = "builtin" | "mcp" | "function";

/** What one request may see: its user, its session, and the allowlist of extra tools it exposes. */
export interface ToolScope {
  userId: string;
  sessionId: string;
  /** Local function tools this request exposes (by name); undefined = all its session declares (a request allowlist still narrows). */
  functions?: readonly string[];
  /** MCP servers this request exposes (by name); undefined = all the user may see. */
  mcpServers?: readonly string[];
}

export interface ResolvedTool {
  spec: AnyToolSpec;
  kind: ToolKind;
  /** Where it comes from: "builtin", an MCP server name, "function". */
  origin: string;
  /** An MCP tool's server id (request allowlists name servers by id or name). */
  originId?: string;
  /** An MCP tool whose schema changed since an operator accepted it: calls must ask. */
  held?: boolean;
}

/**
 * A source of tools beyond the built-ins (user MCP, function tools, session MCP, global MCP). Each
 * resolves names in its own namespace and lists what a scope may see.
 */
export interface ToolProvider {
  readonly name: string;
  resolve(name: string, scope: ToolScope): ResolvedTool | undefined;
  list(scope: ToolScope): ResolvedTool[];
}

/**
 * Resolves tool names with the spec's precedence: built-in → user MCP → local function tools →
 * session MCP → global MCP (providers are given in that order). A name found earlier shadows later ones.
 */
export class ToolRouter {
  private readonly builtins: Map<string, AnyToolSpec>;

  constructor(
    builtins: readonly AnyToolSpec[],
    private readonly providers: readonly ToolProvider[] = [],
  ) {
    this.builtins = new Map();
    for (const spec of builtins) {
      if (this.builtins.has(spec.name)) throw new Error(`Duplicate built-in tool: ${spec.name}`);
      this.builtins.set(spec.name, spec);
    }
  }

  resolve(name: string, scope: ToolScope): ResolvedTool | undefined {
    const builtin = this.builtins.get(name);
    if (builtin) return { spec: builtin, kind: "builtin", origin: "builtin" };
    for (const provider of this.providers) {
      const found = provider.resolve(name, scope);
      if (found) return found;
    }
    return undefined;
  }

  /** Everything the scope may call, each name once (earlier sources shadow later ones). */
  catalogue(scope: ToolScope): ResolvedTool[] {
    const seen = new Set<string>();
    const result: ResolvedTool[] = [];
    const add = (tool: ResolvedTool) => {
      if (seen.has(tool.spec.name)) return;
      seen.add(tool.spec.name);
      result.push(tool);
    };
    for (const spec of this.builtins.values()) add({ spec, kind: "builtin", origin: "builtin" });
    for (const provider of this.providers) for (const tool of provider.list(scope)) add(tool);
    return result;
  }

  /** What a model is shown directly; the rest is reached through `gateway`. */
  directSurface(scope: ToolScope): ResolvedTool[] {
    return this.catalogue(scope).filter((tool) => tool.kind === "builtin" && placementOf(tool.spec.name) === "direct");
  }
}
