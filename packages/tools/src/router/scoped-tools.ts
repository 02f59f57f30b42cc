import { formatIssues } from "@berth/protocol";
import type { AdmissionRegistry, ToolClassification } from "../admission/admit";
import type { ResolvedTool, ToolRouter, ToolScope } from "./tool-router";

/**
 * The tools one call may reach, each name resolved once: admission validates and classifies through it,
 * and execution runs the very ResolvedTool admission judged (no second lookup that could differ).
 */
export class ScopedTools implements AdmissionRegistry {
  private readonly resolved = new Map<string, ResolvedTool | undefined>();

  constructor(
    private readonly router: ToolRouter,
    readonly scope: ToolScope,
  ) {}

  resolve(name: string): ResolvedTool | undefined {
    if (!this.resolved.has(name)) this.resolved.set(name, this.router.resolve(name, this.scope));
    return this.resolved.get(name);
  }

  /**
   * True when a tool is held now: an MCP server re-listed a changed schema since an operator accepted it
   * (possibly after admission, in the background). The one thing that may change between admission and
   * execution, so the only second look; a built-in is never held.
   */
  isHeldNow(name: string): boolean {
    const first = this.resolve(name);
    return first !== undefined && first.kind !== "builtin" && this.router.resolve(name, this.scope)?.held === true;
  }

  /** Everything the scope may call (gateway find, dispatch), each name once. */
  catalogue(): ResolvedTool[] {
    return this.router.catalogue(this.scope);
  }

  has(tool: string): boolean {
    return this.resolve(tool) !== undefined;
  }

  validate(tool: string, args: unknown): { ok: true; args: unknown } | { ok: false; message: string } {
    const spec = this.resolve(tool)?.spec;
    if (!spec) return { ok: false, message: `Unknown tool: ${tool}` };
    const parsed = spec.argsSchema.safeParse(args ?? {});
    return parsed.success ? { ok: true, args: parsed.data } : { ok: false, message: `${tool}: invalid arguments: ${formatIssues(parsed.error)}` };
  }

  actionClassOf(tool: string, args: unknown): ToolClassification {
    const resolved = this.resolve(tool);
    if (!resolved) return { actionClass: "unknown" };
    const classified = resolved.spec.classify(args);
    // A tool that runs a workspace script is allowed by a policy rule only for that script's bytes.
    const bound = resolved.spec.trustedScript ? { ...classified, bindsScript: true } : classified;
    // A held MCP tool (schema changed since accepted) asks until an operator accepts it.
    return resolved.held ? { ...bound, alwaysAsk: true, reasons: [...bound.reasons, "tool schema changed since it was accepted"] } : bound;
  }
}
