// Type tests (checked by `npm run typecheck`, never run): the agent implements every tool the table says runs in it.
import type { AgentToolName } from "@berth/protocol";
import { z } from "zod";
import { readFileTool } from "../files/read-file";
import { defineTool } from "./tool-context";
import type { AgentToolTable } from "./tool-registry";

type WithNewTool = AgentToolName | "new_tool";
type TableOf<N extends string> = { readonly [K in N]: { name: K } };

// @ts-expect-error -- a tool added to the table with runsIn "agent" before its implementation
export const _missingTool: TableOf<WithNewTool> = {} as AgentToolTable;

// @ts-expect-error -- gateway runs in the runner: the agent has no implementation for it
export const _runnerTool = defineTool({ name: "gateway", schema: z.object({}), run: () => Promise.resolve({ ok: true, output: "" }) });

export const _underItsName: AgentToolTable["read_file"] = readFileTool;
