import { z } from "zod";

/** A tool's own failure: a machine-readable code plus a message naming the field, limit and bad value. */
export const ToolErrorSchema = z.object({
  code: z.string(),
  message: z.string(),
});
export type ToolError = z.infer<typeof ToolErrorSchema>;

/**
 * What every tool call returns (docs/tools.md). `output` is what a model reads; `details` is the same
 * data structured for the UI; `trace` is a side channel recorded with the call, never shown to a model.
 */
export const ToolResultSchema = z.object({
  ok: z.boolean(),
  output: z.string(),
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
