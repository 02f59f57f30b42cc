// Type tests (checked by `npm run typecheck`, never run): the tool table is keyed by BuiltinToolName, so a
// name without its row, a row without a fact and a name that is not a built-in all fail to compile.
import { BUILTIN_TOOL_TABLE } from "./builtin-tool-table";
import type { AgentToolName, BuiltinToolFacts } from "./builtin-tool-table";
import type { BuiltinToolName } from "./tool-names";

// A name added to BUILTIN_TOOL_NAMES before its row: the table no longer covers the names.
type WithNewTool = BuiltinToolName | "new_tool";
// @ts-expect-error -- BUILTIN_TOOL_TABLE has no row for new_tool
export const _missingRow: Record<WithNewTool, BuiltinToolFacts> = BUILTIN_TOOL_TABLE;

export const _rowWithoutConcurrency = {
  ...BUILTIN_TOOL_TABLE,
  // @ts-expect-error -- a row must say its concurrency
  read_file: { placement: "direct", runsIn: "agent", actionClass: "read", runKind: "none" },
} satisfies Record<BuiltinToolName, BuiltinToolFacts>;

// @ts-expect-error -- a misspelt name is not a BuiltinToolName
export const _notBuiltin: BuiltinToolName = "read_files";

// The agent implements exactly the rows that run in the agent: gateway runs in the runner.
export const _agentTool: AgentToolName = "bash";
// @ts-expect-error -- gateway runs in the runner, not in the agent
export const _runnerTool: AgentToolName = "gateway";
