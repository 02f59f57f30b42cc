import { type ToolResult, toolFailure } from "@berth/protocol";
import { coerceJsonObject } from "@berth/protocol";
import { findMalformedString, formatArgIssues } from "./format-arg-issues";
import type { AgentTool, ToolContext } from "./tool-context";
import { ToolFailureError } from "./tool-failure-error";

export interface CallToolOptions {
  /** The request line carried bytes that are not UTF-8 (decoded with replacement characters). */
  lineWasInvalidUtf8?: boolean;
}

/**
 * Validates a call's arguments and runs the tool. Every refusal happens before the tool touches
 * anything, and every failure (thrown or returned) comes back as a ToolResult, never as an exception.
 */
export async function callTool(
  tool: AgentTool,
  rawArgs: unknown,
  ctx: ToolContext,
  options: CallToolOptions = {},
): Promise<ToolResult> {
  const prefix = tool.argsErrorPrefix ?? `Invalid arguments for ${tool.name}: `;
  // Weak models send the whole argument object as a JSON string too.
  const args = rawArgs === undefined || rawArgs === null ? {} : coerceJsonObject(rawArgs);
  if (typeof args !== "object" || args === null || Array.isArray(args)) {
    return toolFailure(
      "invalid_args",
      `${prefix}arguments: expected an object (got ${typeof rawArgs === "string" ? "a string that is not a JSON object" : Array.isArray(args) ? "an array" : typeof args})`,
    );
  }
  const malformed = findMalformedString(args, options.lineWasInvalidUtf8 ?? false);
  if (malformed) return toolFailure("invalid_args", `${prefix}${malformed}: contains invalid UTF-8`);
  const parsed = tool.schema.safeParse(args);
  if (!parsed.success) {
    const { message, verbatim } = formatArgIssues(parsed.error.issues, args);
    return toolFailure("invalid_args", verbatim ? message : prefix + message);
  }
  try {
    return await tool.run(parsed.data, ctx);
  } catch (error) {
    if (error instanceof ToolFailureError) return toolFailure(error.code, error.message, error.details);
    const err = error as NodeJS.ErrnoException;
    // An OS error we did not map: still a result, with the errno so the cause is visible.
    return toolFailure(
      err.code === "EACCES" || err.code === "EPERM" ? "permission_denied" : "internal",
      `${tool.name} failed: ${err.message ?? String(error)}`,
    );
  }
}
