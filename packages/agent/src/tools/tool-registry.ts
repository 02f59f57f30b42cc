import type { AgentToolName } from "@berth/protocol";
import { applyPatchTool } from "../files/apply-patch";
import { editTool } from "../files/edit";
import { readFileTool } from "../files/read-file";
import { writeFileTool } from "../files/write-file";
import { updateAgentsMdTool } from "../memory/update-agents-md";
import { bashTool } from "../processes/bash";
import { runScriptTool } from "../run-script/run-script";
import { globTool } from "../search/glob";
import { grepTool } from "../search/grep";
import { codeNavTool } from "../code-nav/code-nav-tool";
import type { AgentTool } from "./tool-context";

/**
 * The agent's implementation of every built-in the tool table says runs in the agent. `satisfies` a row
 * per AgentToolName: a tool added to the table with `runsIn: "agent"` does not compile until it is here.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- each row keeps its own argument schema
export type AgentToolTable = { readonly [K in AgentToolName]: AgentTool<any, K> };

const AGENT_TOOL_TABLE = {
  read_file: readFileTool,
  write_file: writeFileTool,
  edit: editTool,
  apply_patch: applyPatchTool,
  glob: globTool,
  grep: grepTool,
  code_nav: codeNavTool,
  bash: bashTool,
  run_script: runScriptTool,
  update_agents_md: updateAgentsMdTool,
} as const satisfies AgentToolTable;

/** The built-in tools the agent runs inside the container, by wire name. */
export const AGENT_TOOLS: ReadonlyMap<string, AgentTool> = new Map(
  Object.values(AGENT_TOOL_TABLE).map((tool) => [tool.name, tool as AgentTool]),
);
