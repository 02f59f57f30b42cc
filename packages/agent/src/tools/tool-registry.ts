import { applyPatchTool } from "../files/apply-patch";
import { editTool } from "../files/edit";
import { readFileTool } from "../files/read-file";
import { writeFileTool } from "../files/write-file";
import { updateAgentsMdTool } from "../memory/update-agents-md";
import { bashTool } from "../processes/bash";
import { runScriptTool } from "../run-script/run-script";
import { globTool } from "../search/glob";
import { grepTool } from "../search/grep";
import type { AgentTool } from "./tool-context";

/** The built-in tools the agent runs inside the container, by wire name. */
export const AGENT_TOOLS: ReadonlyMap<string, AgentTool> = new Map(
  (
    [
      readFileTool,
      writeFileTool,
      editTool,
      applyPatchTool,
      globTool,
      grepTool,
      bashTool,
      runScriptTool,
      updateAgentsMdTool,
    ] as AgentTool[]
  ).map((tool) => [tool.name, tool]),
);
