import type { CallerKind, ToolProgressListener, ToolResult } from "@berth/protocol";
import type { ObservationTurn } from "@berth/tools";
import type { Principal } from "../auth/tokens";
import type { RequestAllowlist, ToolGate } from "./tool-gate";

export type CallVia = "http" | "socket" | "mcp";

/** One tool call as it reaches the spine from an edge (REST, socket.io, MCP) or from a tool that calls others. */
export interface ToolCallInput {
  sessionId: string;
  principal: Principal;
  tool: string;
  args: unknown;
  caller: CallerKind;
  via: CallVia;
  /** How long to hold a parked call for the operator's decision (0: answer `parked` at once). */
  waitMs?: number;
  /** Told the run id as soon as the call's run row exists (socket `run:started`), before the run ends. */
  onRunStarted?: (runId: string) => void;
  signal?: AbortSignal;
  /** The caller asked for progress (MCP progressToken): long tools report through it. */
  onProgress?: ToolProgressListener;
  /** A request-level allowlist (`?tools=…&servers=…`): nothing outside it is listed or callable. */
  allow?: RequestAllowlist;
  /** The caller turn's observation pool: a call made inside another (gateway call, dispatch task) shares it. */
  turn?: ObservationTurn;
  /** Set by call(): what this caller may reach (its allowlist and the session's active skills). */
  gate?: ToolGate;
  /** A compete or review task or check: the agent runs it in that candidate's tree (`<competeId>/<candidate>`). */
  worktree?: string;
  /** The call already runs in the background (its spec's detach answered the caller). */
  detached?: boolean;
}

export type ToolCallOutcome =
  | { kind: "result"; result: ToolResult }
  | { kind: "parked"; approvalId: string; text: string; sha256: string; expiresAt: string };
