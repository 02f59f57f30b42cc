import type { z } from "zod";
import type { ActionClass, BuiltinToolName, CallerKind, ToolProgressListener, ToolResult } from "@berth/protocol";
import type { SimpleCommand } from "../shell";
import type { ContextHost } from "../context/context-host";
import type { CompeteTreesHost } from "../orchestration/compete-trees-host";

export type ExecutionMode = "parallel" | "sequential";
export type Placement = "direct" | "gateway";

/** How admission sees one call: its class, and whether a recognised (tests/builds/ls…) command. */
export interface CallClassification {
  actionClass: ActionClass;
  recognised: boolean;
  /** `$(…)`, backticks and the like: always asks, whatever the autonomy. */
  alwaysAsk: boolean;
  reasons: string[];
  /** Parsed command words, for a tool that runs a command line: policy prefixes match these. */
  commands?: readonly SimpleCommand[];
  /** The call runs a workspace script (set by the registry for a spec with `trustedScript`): an allow rule must name its sha256. */
  bindsScript?: boolean;
}

/** What a tool's `classify` may consult besides its arguments: where the workspace is, and the session's processes. */
export interface ClassifyContext {
  /** Absolute workspace root inside the container (WORKSPACE_ROOT). */
  workspaceRoot: string;
  /** Roots outside the workspace a command may write without being system_modify (the container's /tmp). */
  writableRoots?: readonly string[];
  /** The class a running process's `bash start` was admitted under (what `bash write` to it inherits). */
  processClass?: (processId: string) => Partial<CallClassification> & Pick<CallClassification, "actionClass"> | undefined;
}

/** What a parked call's approval binds besides its arguments: the files it runs, reads or changes. */
export interface BoundFiles {
  /** Paths as the arguments name them; for run_script the script first. */
  paths: string[];
  /** The file whose content the operator reads in the text (run_script's script). */
  preview?: string;
}

/** The kind of run a call records (logs + receipt). */
export type ToolRunKind = "run_script" | "bash" | "process" | "mcp" | "dispatch";

/** Runs a tool inside the session's sandbox (the agent); implemented by the runner over the driver. */
export interface SandboxCaller {
  callTool(tool: string, args: unknown, opts: { callId: string; signal?: AbortSignal; timeoutMs?: number }): Promise<ToolResult>;
}

/**
 * What `gateway` needs from the runner: the catalogue this request may see, and a way to call a
 * capability under its own name through the same admission as any other call.
 */
export interface GatewayHost {
  catalogue(): readonly { spec: AnyToolSpec; kind: "builtin" | "mcp" | "function" }[];
  /** Why a capability that exists is kept out of this catalogue (a request allowlist, an active skill), if it is. */
  refusal?(name: string): string | undefined;
  /** Problems that keep capabilities out of the catalogue (a malformed berth.tools.json): `find` shows them. */
  notices?(): string[];
  call(tool: string, args: unknown): Promise<ToolResult>;
  /** Runs a task of a plan that admission already approved as a whole (dispatch): no second ask; `worktree` runs it in a compete tree. */
  callAdmitted(tool: string, args: unknown, opts?: { worktree?: string }): Promise<ToolResult>;
}

/** A run as `monitor` reports it. */
export interface MonitoredRun {
  id: string;
  sessionId: string;
  tool: string;
  status: string;
  outcome: string | null;
  exitCode: number | null;
  startedAt: string;
  endedAt: string | null;
  durationMs: number | null;
  receiptId: string | null;
}

/** What `monitor` reads, always scoped to the caller's session by the runner. */
export interface MonitorHost {
  listRuns(limit: number): Promise<MonitoredRun[]>;
  /** The run, or why it cannot be shown ("belongs to another session", "not found"). */
  getRun(runId: string): Promise<MonitoredRun | { refused: string }>;
  tail(runId: string, bytes: number): Promise<{ stdout: string; stderr: string }>;
  receipt(runId: string): Promise<unknown>;
  /** Resolves when the run has ended or the timeout passes. */
  waitForEnd(runId: string, timeoutMs: number): Promise<MonitoredRun | { refused: string }>;
  tools(): { name: string; description: string }[];
}

export interface ToolContext {
  sessionId: string;
  userId: string;
  /** Names this call for live output and abort; for run-creating tools it is the run id. */
  callId: string;
  caller: CallerKind;
  sandbox: SandboxCaller;
  signal?: AbortSignal;
  /** Present when the caller asked for progress (MCP progressToken): long tools report through it. */
  onProgress?: ToolProgressListener;
  /** The text the operator approved when the call asked (a compete checks the tree it bound is still the tree). */
  approvedText?: string;
  /** Present for calls that may reach other tools (gateway, dispatch). */
  host?: GatewayHost;
  monitor?: MonitorHost;
  /** Present for `context`: the session's settings, skills, stored bodies and this turn's budget. */
  context?: ContextHost;
  /** Present for dispatch: the session's compete and review candidate trees (made by the agent in the container). */
  trees?: CompeteTreesHost;
}

/**
 * One tool: its model-facing surface (name, description, JSON schema generated from zod), how admission
 * classifies a call, how it runs, and whether a call becomes a run (logs + receipt).
 */
export interface ToolSpec<TArgs = unknown> {
  name: string;
  description: string;
  argsSchema: z.ZodType<TArgs>;
  /** JSON schema of the parameters, generated from argsSchema (never written twice). */
  parameters: Record<string, unknown>;
  /** JSON schema of `details` on success (MCP outputSchema), generated from the protocol's result schema. */
  outputSchema?: Record<string, unknown>;
  /** MCP tool annotations an upstream server declared (hints, shown by `gateway describe`). */
  annotations?: Record<string, unknown>;
  /** Calls other tools by name (gateway, dispatch): its MCP annotations are those of what it can reach. */
  reachesOthers?: boolean;
  /** Built-ins: the tool table's concurrency (how the agent orders its calls). */
  executionMode: ExecutionMode;
  /** The class the tool surface shows (MCP annotations, gateway find); built-ins take it from the tool table. */
  actionClass?: ActionClass;
  /** The class of one call; bash and run_script read their command, bash write the process it writes to. */
  classify(args: TArgs, ctx?: ClassifyContext): CallClassification;
  /** True when this call is an execution recorded as a run (run_script, bash exec/start). */
  createsRun(args: TArgs): boolean;
  /** The kind of the run a call that createsRun records; omitted: an `mcp` run (an MCP tool's call). */
  runKind?(args: TArgs): ToolRunKind;
  /** The agent tool a call runs as when not its own name (a function tool runs as run_script): its approval's file hashes go with that call. */
  runsAs?: BuiltinToolName;
  /** The files an approval of this call binds (hashed when it parks, checked again when it runs). */
  boundFiles?(args: TArgs): BoundFiles | undefined;
  /**
   * The workspace script the call runs (a function tool's): hashed before admission, since an operator's allow
   * rule names the script's sha256, and checked again when it runs.
   */
  trustedScript?(args: TArgs): string;
  /** What a finished call changed, for open IDEs to refresh ("." for anything: a command ran). */
  changedPaths?(args: TArgs, result: ToolResult): string[];
  /** The process a successful call started and left running (bash start): its run stays open, bound to it. */
  startedProcess?(args: TArgs, result: ToolResult): string | undefined;
  /** A call is a plan of other calls (dispatch): admission judges each task, then the plan as a whole. */
  plansCalls?: boolean;
  /**
   * The answer a call gives at once when its run goes on in the background (dispatch background=true), or
   * undefined to run it to the end first; the run then ends by itself and `monitor collect` waits for it.
   */
  detach?(args: TArgs): ((runId: string) => ToolResult) | undefined;
  /** Its approval binds the workspace tree's identity (a compete or review plan changes what that tree holds). */
  bindsTree?(args: TArgs): boolean;
  run(args: TArgs, ctx: ToolContext): Promise<ToolResult>;
}

/** A ToolSpec whose argument type has been erased, as registries hold them. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyToolSpec = ToolSpec<any>;
