import type { ActionClass } from "../admission";
import { BUILTIN_TOOL_NAMES, type BuiltinToolName } from "./tool-names";

/** What a built-in tool is, whatever its arguments: the facts placement, concurrency, runs and docs derive from. */
export interface BuiltinToolFacts {
  /** direct: listed to models; gateway: reached through `gateway` find/describe/call. Never what a call may do. */
  placement: "direct" | "gateway";
  /** agent: the session's in-container agent runs it; runner: the runner itself (it calls other tools or reads runs). */
  runsIn: "agent" | "runner";
  /**
   * sequential: the agent runs it one at a time, in the order sent, so file edits never interleave.
   * parallel: it runs alongside other calls (in the agent, after the sequential calls sent before it).
   * bash and run_script are parallel: a server or a long script must not hold every edit behind it.
   */
  concurrency: "parallel" | "sequential";
  /** The class the tool surface shows (MCP annotations); admission classifies each call on its own. */
  actionClass: ActionClass;
  /** The run a call records (logs + receipt): bash's `start` is a `process` run, its read actions none. */
  runKind: "run_script" | "bash" | "none";
}

/**
 * The one tool table. `satisfies Record<BuiltinToolName, …>`: a name in BUILTIN_TOOL_NAMES without a row,
 * or a row for a name that is not there, does not compile.
 */
export const BUILTIN_TOOL_TABLE = {
  read_file: { placement: "direct", runsIn: "agent", concurrency: "parallel", actionClass: "read", runKind: "none" },
  write_file: { placement: "direct", runsIn: "agent", concurrency: "sequential", actionClass: "write", runKind: "none" },
  edit: { placement: "direct", runsIn: "agent", concurrency: "sequential", actionClass: "write", runKind: "none" },
  apply_patch: { placement: "direct", runsIn: "agent", concurrency: "sequential", actionClass: "write", runKind: "none" },
  glob: { placement: "direct", runsIn: "agent", concurrency: "parallel", actionClass: "read", runKind: "none" },
  grep: { placement: "direct", runsIn: "agent", concurrency: "parallel", actionClass: "read", runKind: "none" },
  code_nav: { placement: "direct", runsIn: "agent", concurrency: "parallel", actionClass: "read", runKind: "none" },
  bash: { placement: "direct", runsIn: "agent", concurrency: "parallel", actionClass: "execute", runKind: "bash" },
  run_script: { placement: "direct", runsIn: "agent", concurrency: "parallel", actionClass: "execute", runKind: "run_script" },
  update_agents_md: { placement: "gateway", runsIn: "agent", concurrency: "sequential", actionClass: "write", runKind: "none" },
  gateway: { placement: "direct", runsIn: "runner", concurrency: "parallel", actionClass: "read", runKind: "none" },
  monitor: { placement: "direct", runsIn: "runner", concurrency: "parallel", actionClass: "read", runKind: "none" },
  dispatch: { placement: "direct", runsIn: "runner", concurrency: "parallel", actionClass: "dispatch", runKind: "none" },
  context: { placement: "gateway", runsIn: "runner", concurrency: "parallel", actionClass: "read", runKind: "none" },
} as const satisfies Record<BuiltinToolName, BuiltinToolFacts>;

/** The facts of a built-in tool, or undefined for any other name (MCP and function tools). */
export function builtinToolFacts(name: string): BuiltinToolFacts | undefined {
  return Object.hasOwn(BUILTIN_TOOL_TABLE, name) ? BUILTIN_TOOL_TABLE[name as BuiltinToolName] : undefined;
}

/** The built-in tools the agent implements: what its tool table must cover, no more, no fewer. */
export type AgentToolName = {
  [K in BuiltinToolName]: (typeof BUILTIN_TOOL_TABLE)[K]["runsIn"] extends "agent" ? K : never;
}[BuiltinToolName];

export const AGENT_TOOL_NAMES: readonly AgentToolName[] = BUILTIN_TOOL_NAMES.filter(
  (name): name is AgentToolName => BUILTIN_TOOL_TABLE[name].runsIn === "agent",
);
