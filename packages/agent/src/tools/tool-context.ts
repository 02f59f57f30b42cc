import type { ToolResult } from "@berth/protocol";
import type { z } from "zod";
import type { AgentConfig } from "../config";
import type { ProcessManager } from "../processes/process-manager";
import type { Workspace } from "../workspace/workspace";

export type Notify = (method: string, params: Record<string, unknown>) => void;

/** Everything a tool run may touch, handed in by the dispatcher (no globals, so tests can build one). */
export interface ToolContext {
  workspace: Workspace;
  config: AgentConfig;
  callId: string;
  /** The session's declared environment, added to the clean environment of spawned processes. */
  sessionEnv: Record<string, string>;
  signal: AbortSignal;
  notify: Notify;
  processes: ProcessManager;
  /** sha256 an approval bound per file (null: absent); the call must refuse when a file changed. */
  expect?: Record<string, string | null>;
}

export interface AgentTool<S extends z.ZodType = z.ZodType> {
  name: string;
  schema: S;
  /** Changes files: such calls run one at a time inside the agent so edits never interleave. */
  mutates: boolean;
  /** Error prefix for refused arguments; run_script's spec demands "run_script: ". */
  argsErrorPrefix?: string;
  run(args: z.output<S>, ctx: ToolContext): Promise<ToolResult>;
}

export function defineTool<S extends z.ZodType>(tool: AgentTool<S>): AgentTool<S> {
  return tool;
}

/** A structured success: the model reads the JSON text, the UI reads details. */
export function okResult(details: object, trace?: Record<string, unknown>): ToolResult {
  return {
    ok: true,
    output: JSON.stringify(details),
    details: details as Record<string, unknown>,
    ...(trace ? { trace } : {}),
  };
}
