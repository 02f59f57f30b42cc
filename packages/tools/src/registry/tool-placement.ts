import { BUILTIN_TOOL_NAMES, BUILTIN_TOOL_TABLE, builtinToolFacts } from "@berth/protocol";
import type { BuiltinToolName } from "@berth/protocol";
import type { Placement } from "./tool-spec";

/**
 * Direct vs gateway placement of every built-in, from the tool table (BUILTIN_TOOL_TABLE). Direct tools
 * are listed to models; gateway tools are reached through `gateway` find/describe/call. Placement changes
 * what a model sees, never what a call may do.
 */
export const TOOL_PLACEMENT: Readonly<Record<BuiltinToolName, Placement>> = Object.freeze(
  Object.fromEntries(BUILTIN_TOOL_NAMES.map((name) => [name, BUILTIN_TOOL_TABLE[name].placement])) as Record<BuiltinToolName, Placement>,
);

/** A built-in's placement; every other tool (MCP tools, function tools) is gateway-placed. */
export function placementOf(toolName: string): Placement {
  return builtinToolFacts(toolName)?.placement ?? "gateway";
}
