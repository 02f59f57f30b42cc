import { z } from "zod";
import { BUILTIN_TOOL_TABLE } from "@berth/protocol";
import type { ActionClass, BuiltinToolName, ToolResult } from "@berth/protocol";
import type { AnyToolSpec, BoundFiles, CallClassification, ClassifyContext, ToolContext, ToolRunKind, ToolSpec } from "./tool-spec";

/** Generates the model-facing JSON schema from the zod schema: the input side, as a caller writes it. */
export function jsonSchemaOf(schema: z.ZodType): Record<string, unknown> {
  const json = z.toJSONSchema(schema, { io: "input", unrepresentable: "any" }) as Record<string, unknown>;
  delete json.$schema;
  return json;
}

/**
 * The MCP `outputSchema` of a result schema: what `details` (MCP structuredContent) holds. Declared
 * fields only, extra ones allowed (the input view of zod leaves additionalProperties open), so a field
 * added later does not break a client that validates. A union still says `type: "object"` at the top,
 * as MCP requires.
 */
export function outputSchemaOf(schema: z.ZodType): Record<string, unknown> {
  const json = z.toJSONSchema(schema, { io: "input", unrepresentable: "any" }) as Record<string, unknown>;
  delete json.$schema;
  return json.type === "object" ? json : { type: "object", ...json };
}

/**
 * A built-in tool's spec. Its name must be a BuiltinToolName, and what the tool table says of it
 * (concurrency → executionMode, the class its surface shows) is taken from the table, never restated.
 */
export function defineTool<TArgs, N extends BuiltinToolName>(spec: {
  name: N;
  description: string;
  argsSchema: z.ZodType<TArgs>;
  /** The zod schema of `details` on success: published as the tool's MCP outputSchema. */
  resultSchema?: z.ZodType;
  reachesOthers?: boolean;
  classify: (args: TArgs, ctx?: ClassifyContext) => CallClassification;
  createsRun?: (args: TArgs) => boolean;
  runKind?: (args: TArgs) => ToolRunKind;
  boundFiles?: (args: TArgs) => BoundFiles | undefined;
  changedPaths?: (args: TArgs, result: ToolResult) => string[];
  startedProcess?: (args: TArgs, result: ToolResult) => string | undefined;
  plansCalls?: boolean;
  detach?: (args: TArgs) => ((runId: string) => ToolResult) | undefined;
  bindsTree?: (args: TArgs) => boolean;
  run: (args: TArgs, ctx: ToolContext) => Promise<ToolResult>;
}): ToolSpec<TArgs> & { name: N } {
  const { resultSchema, ...rest } = spec;
  const facts = BUILTIN_TOOL_TABLE[spec.name];
  return {
    ...rest,
    executionMode: facts.concurrency,
    actionClass: facts.actionClass,
    parameters: jsonSchemaOf(spec.argsSchema),
    ...(resultSchema ? { outputSchema: outputSchemaOf(resultSchema) } : {}),
    createsRun: spec.createsRun ?? (() => false),
  };
}

/** A fixed class for tools whose class never depends on their arguments. */
export function fixedClass(actionClass: CallClassification["actionClass"], recognised = true): () => CallClassification {
  return () => ({ actionClass, recognised, alwaysAsk: false, reasons: [] });
}

/**
 * The class a tool's surface shows (GET /tools, MCP annotations, gateway find, what gateway and dispatch
 * reach): a built-in's from the tool table, any other tool's from classifying a call without arguments.
 */
export function shownClassOf(spec: AnyToolSpec): ActionClass {
  if (spec.actionClass) return spec.actionClass;
  try {
    return spec.classify({}).actionClass;
  } catch {
    return "unknown";
  }
}

/** A successful structured result: the same data as JSON text for models and as details for the UI. */
export function jsonResult(details: Record<string, unknown>): ToolResult {
  return { ok: true, output: JSON.stringify(details), details };
}

export type { AnyToolSpec };
