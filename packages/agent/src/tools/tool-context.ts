import type { AgentToolName, OutputChunkHeader, ToolResult } from "@berth/protocol";
import type { z } from "zod";
import type { AgentConfig } from "../config";
import type { ProcessManager } from "../processes/process-manager";
import type { Workspace } from "../workspace/workspace";

export type Notify = (method: string, params: Record<string, unknown>) => void;
/**
 * Sends a chunk of live output to the runner (a binary frame on the channel, agent-output-frame.ts). `written`, when
 * given, is called once the frame's bytes have left (or will never leave): until then `data` must stay as it is, and
 * from then on the caller may fill it again (run_script's reused read buffers, processes/lent-output.ts).
 */
export type EmitOutput = (header: OutputChunkHeader, data: Buffer, written?: () => void) => void;

/** Everything a tool run may touch, handed in by the dispatcher (no globals, so tests can build one). */
export interface ToolContext {
  workspace: Workspace;
  config: AgentConfig;
  callId: string;
  /** The session's declared environment, added to the clean environment of spawned processes. */
  sessionEnv: Record<string, string>;
  signal: AbortSignal;
  notify: Notify;
  output: EmitOutput;
  processes: ProcessManager;
  /** sha256 an approval bound per file (null: absent); the call must refuse when a file changed. */
  expect?: Record<string, string | null>;
}

/**
 * One built-in tool as the agent runs it. How its calls are ordered (one at a time for file edits) is the
 * tool table's `concurrency` (BUILTIN_TOOL_TABLE in @berth/protocol), not a fact restated here.
 */
export interface AgentTool<S extends z.ZodType = z.ZodType, N extends AgentToolName = AgentToolName> {
  name: N;
  schema: S;
  /** Error prefix for refused arguments; run_script's spec demands "run_script: ". */
  argsErrorPrefix?: string;
  run(args: z.output<S>, ctx: ToolContext): Promise<ToolResult>;
}

export function defineTool<S extends z.ZodType, N extends AgentToolName>(tool: AgentTool<S, N>): AgentTool<S, N> {
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
