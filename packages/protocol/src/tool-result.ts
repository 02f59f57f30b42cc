import { z } from "zod";
import { ContentBlockSchema } from "./content-block";

/** A tool's own failure: a machine-readable code plus a message naming the field, limit and bad value. */
export const ToolErrorSchema = z.object({
  code: z.string(),
  message: z.string(),
});
export type ToolError = z.infer<typeof ToolErrorSchema>;

/**
 * What every tool call returns (docs/tools.md). `output` is what a model reads; `details` is the same
 * data structured for the UI; `trace` is a side channel recorded with the call, never shown to a model.
 * `content` and `structuredContent` are MCP's own: set when a result has more than text (an upstream
 * image, an annotated block) or an upstream's structured result, and sent to MCP callers exactly as they
 * are, while `output` keeps a short textual stand-in for everyone else.
 */
export const ToolResultSchema = z.object({
  ok: z.boolean(),
  output: z.string(),
  content: z.array(ContentBlockSchema).optional(),
  structuredContent: z.record(z.string(), z.unknown()).optional(),
  details: z.record(z.string(), z.unknown()).optional(),
  trace: z.record(z.string(), z.unknown()).optional(),
  error: ToolErrorSchema.optional(),
  runId: z.string().optional(),
  receiptId: z.string().optional(),
});
export type ToolResult = z.infer<typeof ToolResultSchema>;

export function isToolResult(value: unknown): value is ToolResult {
  return ToolResultSchema.safeParse(value).success;
}

/** Builds a failed result whose output repeats the message, so a model reads the reason. */
export function toolFailure(code: string, message: string, details?: Record<string, unknown>): ToolResult {
  return { ok: false, output: message, error: { code, message }, ...(details ? { details } : {}) };
}
