import { createHash } from "node:crypto";
import { type BuiltinToolName, type ToolResult, toolFailure } from "@berth/protocol";
import type { z } from "zod";
import { defineTool } from "./define-tool";
import type { AnyToolSpec, CallClassification, ToolContext, ToolSpec } from "./tool-spec";

/** What a caller and admission see of a tool before any of its code runs. */
export interface ToolSurface {
  name: string;
  description: string;
  parameters: Record<string, unknown>;
  actionClass: string;
  executionMode: string;
}

export function surfaceOf(spec: AnyToolSpec): ToolSurface {
  return {
    name: spec.name,
    description: spec.description,
    parameters: spec.parameters,
    actionClass: spec.actionClass ?? "unknown",
    executionMode: spec.executionMode,
  };
}

/** JSON with object keys sorted at every depth: the same surface always hashes the same. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
  if (value && typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(",")}}`;
  }
  return JSON.stringify(value);
}

/** sha256 of the canonical surface (name, description, parameters, action class, execution mode). */
export function surfaceHash(surface: ToolSurface): string {
  return createHash("sha256").update(canonical(surface)).digest("hex");
}

/** The marker that tells a lazy spec from an eager one (the pinned-hash test and the runner's start check). */
export interface LazyToolSpec<TArgs = unknown> extends ToolSpec<TArgs> {
  lazy: {
    /** The hash of the surface registered eagerly. */
    surfaceHash: string;
    /** True once the implementation has loaded (and matched). */
    loaded(): boolean;
  };
}

export function isLazyTool(spec: AnyToolSpec): spec is LazyToolSpec {
  return typeof (spec as Partial<LazyToolSpec>).lazy?.surfaceHash === "string";
}

/**
 * A built-in whose surface is registered now and whose implementation loads on the first call. The
 * registered spec answers tools/list, gateway find/describe and admission (classify) without loading
 * anything. The loaded implementation must present the same surface; one that drifted (a description,
 * parameter, class or mode changed on one side only) is never run: every call fails with
 * `lazy tool surface drift for <name>`, naming both hashes.
 */
export function lazyTool<TArgs, N extends BuiltinToolName>(spec: {
  name: N;
  description: string;
  argsSchema: z.ZodType<TArgs>;
  resultSchema?: z.ZodType;
  classify: (args: TArgs) => CallClassification;
  createsRun?: (args: TArgs) => boolean;
  load: () => Promise<ToolSpec<TArgs>>;
}): LazyToolSpec<TArgs> & { name: N } {
  const { load, ...surface } = spec;
  let loading: Promise<ToolSpec<TArgs> | ToolResult> | undefined;
  let loaded = false;
  const registered = defineTool({
    ...surface,
    run: async (args: TArgs, ctx: ToolContext): Promise<ToolResult> => {
      loading ??= load().then((impl) => {
        const expected = surfaceHash(surfaceOf(registered));
        const actual = surfaceHash(surfaceOf(impl));
        if (actual !== expected) {
          return toolFailure(
            "surface_drift",
            `lazy tool surface drift for ${spec.name}: registered ${expected.slice(0, 12)}, loaded ${actual.slice(0, 12)}`,
          );
        }
        loaded = true;
        return impl;
      });
      // A load that threw (a missing module) is tried again on the next call rather than remembered.
      loading.catch(() => (loading = undefined));
      const impl = await loading;
      return "run" in impl ? impl.run(args, ctx) : impl;
    },
  });
  return Object.assign(registered, { lazy: { surfaceHash: surfaceHash(surfaceOf(registered)), loaded: () => loaded } });
}
