import { z } from "zod";
import type { AnyToolSpec, CallClassification, ExecutionMode, ToolContext, ToolSpec } from "./tool-spec";
import type { ToolResult } from "@berth/protocol";

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

export function defineTool<TArgs>(spec: {
  name: string;
  description: string;
  argsSchema: z.ZodType<TArgs>;
  /** The zod schema of `details` on success: published as the tool's MCP outputSchema. */
  resultSchema?: z.ZodType;
  reachesOthers?: boolean;
  executionMode: ExecutionMode;
  classify: (args: TArgs) => CallClassification;
  createsRun?: (args: TArgs) => boolean;
  run: (args: TArgs, ctx: ToolContext) => Promise<ToolResult>;
}): ToolSpec<TArgs> {
  const { resultSchema, ...rest } = spec;
  return {
    ...rest,
    parameters: jsonSchemaOf(spec.argsSchema),
    ...(resultSchema ? { outputSchema: outputSchemaOf(resultSchema) } : {}),
    createsRun: spec.createsRun ?? (() => false),
  };
}

/** A fixed class for tools whose class never depends on their arguments. */
export function fixedClass(actionClass: CallClassification["actionClass"], recognised = true): () => CallClassification {
  return () => ({ actionClass, recognised, alwaysAsk: false, reasons: [] });
}

/** A successful structured result: the same data as JSON text for models and as details for the UI. */
export function jsonResult(details: Record<string, unknown>): ToolResult {
  return { ok: true, output: JSON.stringify(details), details };
}

export type { AnyToolSpec };
