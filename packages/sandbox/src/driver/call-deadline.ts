import { BASH_DEFAULT_TIMEOUT_MS, BuiltinTool, RUN_SCRIPT_DEFAULT_TIMEOUT_MS, type ToolCallParams } from "@berth/protocol";

/** Longest default run of a tool that has its own clock (docs/tools.md: run_script 600 s, bash exec 30 s). */
const TOOL_DEFAULT_TIMEOUT_MS: Readonly<Record<string, number>> = {
  [BuiltinTool.run_script]: RUN_SCRIPT_DEFAULT_TIMEOUT_MS,
  [BuiltinTool.bash]: BASH_DEFAULT_TIMEOUT_MS,
};
/** Time the agent gets after its own timeout to kill the process group and answer. */
const GRACE_MS = 10_000;

/**
 * How long the runner waits for a tool call: the one deadline rule (the runner's tool service leaves it to
 * the driver). A tool with its own `timeoutMs` (run_script, bash) must be allowed to reach it and report
 * `timed-out` itself, so the deadline is that plus a grace, never less than the driver's call timeout.
 */
export function callDeadlineMs(params: ToolCallParams, callTimeoutMs: number): number {
  const args = params.args;
  const own =
    typeof args === "object" && args !== null && "timeoutMs" in args && typeof args.timeoutMs === "number"
      ? args.timeoutMs
      : TOOL_DEFAULT_TIMEOUT_MS[params.tool];
  if (own === undefined || !Number.isFinite(own) || own <= 0) return callTimeoutMs;
  return Math.max(callTimeoutMs, Math.ceil(own) + GRACE_MS);
}
