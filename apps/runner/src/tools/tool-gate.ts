import type { ResolvedTool } from "@berth/tools";
import type { SkillNarrowing } from "../skills/skills-service";

/** A request-level allowlist (`/mcp/<id>?tools=read_file,grep&servers=<id>`, and the same on the HTTP tool routes). */
export interface RequestAllowlist {
  /** Tool names this request may list and call (built-in, MCP or function, by the name it is exposed as). */
  tools?: readonly string[];
  /** MCP servers (id or name) whose tools this request may list and call. */
  servers?: readonly string[];
}

/** `tools=a,b` and `servers=x` from a query string; absent or empty parts allow everything they would name. */
export function parseRequestAllowlist(query: { tools?: unknown; servers?: unknown }): RequestAllowlist | undefined {
  if (query.tools === undefined && query.servers === undefined) return undefined;
  const list = (value: unknown): string[] | undefined => {
    const text = Array.isArray(value) ? value.join(",") : typeof value === "string" ? value : undefined;
    const names = text
      ?.split(",")
      .map((name) => name.trim())
      .filter((name) => name !== "");
    return names && names.length > 0 ? names : undefined;
  };
  const tools = list(query.tools);
  const servers = list(query.servers);
  if (!tools && !servers) return undefined;
  return { ...(tools ? { tools } : {}), ...(servers ? { servers } : {}) };
}

/**
 * What one caller may list and call in a session: its request's allowlist and the session's active skills,
 * both at once. The same answer for tools/list, gateway find and admission, and a refusal names the tool
 * and what keeps it out.
 */
export class ToolGate {
  constructor(
    private readonly request: RequestAllowlist | undefined,
    private readonly skills: SkillNarrowing | null,
  ) {}

  get narrows(): boolean {
    return this.request !== undefined || this.skills !== null;
  }

  /** The names this caller is held to, for `context settings` (null: not held to a list of names). */
  allowedNames(): string[] | null {
    const fromRequest = this.request?.tools;
    const fromSkills = this.skills ? [...this.skills.tools] : undefined;
    if (fromRequest && fromSkills) return fromRequest.filter((name) => fromSkills.includes(name));
    return fromRequest ? [...fromRequest] : (fromSkills ?? null);
  }

  /** Why this tool is out of reach, or undefined when it may be called. */
  refusal(name: string, resolved: Pick<ResolvedTool, "kind" | "origin" | "originId"> | undefined): string | undefined {
    const request = this.request;
    if (request) {
      const byName = request.tools?.includes(name) ?? false;
      const byServer =
        resolved?.kind === "mcp" &&
        (request.servers?.some((server) => server === resolved.origin || server === resolved.originId) ?? false);
      // servers= alone narrows MCP tools only; tools= alone narrows everything to its names.
      const allowed = request.tools ? byName || byServer : resolved?.kind !== "mcp" || byServer;
      if (!allowed) {
        const parts = [
          request.tools ? `tools=${request.tools.join(",")}` : "",
          request.servers ? `servers=${request.servers.join(",")}` : "",
        ].filter(Boolean);
        return `${name} is not on this request's allowlist (${parts.join("&")})`;
      }
    }
    if (this.skills && !this.skills.tools.has(name)) {
      return `${name} is outside the active skill${this.skills.skills.length === 1 ? "" : "s"} ${this.skills.skills.join(", ")} (allowed: ${[...this.skills.tools].join(", ")})`;
    }
    return undefined;
  }

  allows(tool: ResolvedTool): boolean {
    return this.refusal(tool.spec.name, tool) === undefined;
  }
}
