/**
 * Every built-in tool by name: the one list the tool table (builtin-tool-table.ts), the runner's tool
 * specs and the agent's implementations are keyed by, so a new name does not compile until each has it.
 */
export const BUILTIN_TOOL_NAMES = [
  "read_file",
  "write_file",
  "edit",
  "apply_patch",
  "glob",
  "grep",
  "code_nav",
  "bash",
  "run_script",
  "update_agents_md",
  "gateway",
  "monitor",
  "dispatch",
  "context",
] as const;

export type BuiltinToolName = (typeof BUILTIN_TOOL_NAMES)[number];

const NAMES: ReadonlySet<string> = new Set(BUILTIN_TOOL_NAMES);

export function isBuiltinToolName(name: string): name is BuiltinToolName {
  return NAMES.has(name);
}

/**
 * Each built-in's name as a typed constant (`BuiltinTool.bash`): what code compares a tool name against
 * (lint refuses a raw string), so a rename or a typo fails typecheck.
 */
export const BuiltinTool = Object.freeze(Object.fromEntries(BUILTIN_TOOL_NAMES.map((name) => [name, name]))) as {
  readonly [K in BuiltinToolName]: K;
};
