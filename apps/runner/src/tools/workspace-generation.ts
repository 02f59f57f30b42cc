import { BuiltinTool, type ActionClass } from "@berth/protocol";
import type { SandboxDriver } from "@berth/sandbox";

/** What a finished call tells the counter: its admitted class and whether it succeeded. */
export interface FinishedCall {
  actionClass: ActionClass;
  ok: boolean;
}

/**
 * Whether a finished call may have changed what later calls observe. A call admitted as `read` changes
 * nothing (read_file, grep, bash status/logs, an MCP tool an operator trusts as read-only); a write,
 * patch or edit that failed changed nothing either (they are atomic); every command that ran, and
 * every other MCP tool, may have changed anything.
 */
export function changesWorkspace(call: FinishedCall): boolean {
  if (call.actionClass === "read") return false;
  if (call.actionClass === "write") return call.ok;
  return true;
}

/**
 * A per-session workspace generation: bumped by every call that may have changed the workspace and by
 * every background process that ends (it may have written anything while it ran). The loop guard keys
 * repeats on it, so a read after an edit is never "the same call again".
 */
export class WorkspaceGeneration {
  private readonly counters = new Map<string, number>();
  /** Output seen from the session's background processes: what `bash status/logs/list` observe. */
  private readonly activity = new Map<string, number>();

  constructor(driver?: Pick<SandboxDriver, "on">) {
    driver?.on("process.status", (event) => {
      if (event.status !== "RUNNING") this.bump(event.sessionId);
    });
    // A sandbox that stopped took its processes with it: whatever they did is done.
    driver?.on("terminated", (event) => this.bump(event.sessionId));
    driver?.on("output", (event) => {
      if (event.processId !== undefined)
        this.activity.set(event.sessionId, (this.activity.get(event.sessionId) ?? 0) + 1);
    });
  }

  /**
   * The generation a call observes: polling a process (`bash status/logs/list`) also sees its output,
   * so a poll after new output is not a repeat either. Both counters only grow, so their sum moves
   * whenever either does.
   */
  observedBy(sessionId: string, tool: string, args: unknown): number {
    const action = (args as { action?: unknown } | null)?.action;
    const polls = tool === BuiltinTool.bash && (action === "status" || action === "logs" || action === "list");
    return this.current(sessionId) + (polls ? (this.activity.get(sessionId) ?? 0) : 0);
  }

  current(sessionId: string): number {
    return this.counters.get(sessionId) ?? 0;
  }

  bump(sessionId: string): number {
    const next = this.current(sessionId) + 1;
    this.counters.set(sessionId, next);
    return next;
  }
}
