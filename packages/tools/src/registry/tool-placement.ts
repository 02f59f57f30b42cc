import type { Placement } from "./tool-spec";

/**
 * The single source of direct vs gateway placement (docs/tools.md). Direct tools are listed to models;
 * gateway tools are reached through `gateway` find/describe/call. Placement changes what a model sees,
 * never what a call may do. Anything not named here (MCP tools, function tools) is gateway-placed.
 */
export const TOOL_PLACEMENT: Readonly<Record<string, Placement>> = Object.freeze({
  read_file: "direct",
  write_file: "direct",
  edit: "direct",
  apply_patch: "direct",
  glob: "direct",
  grep: "direct",
  bash: "direct",
  run_script: "direct",
  gateway: "direct",
  monitor: "direct",
  dispatch: "direct",
  update_agents_md: "gateway",
  context: "gateway",
});

export function placementOf(toolName: string): Placement {
  return TOOL_PLACEMENT[toolName] ?? "gateway";
}
