import type { SandboxDriver } from "@berth/sandbox";
import type { SandboxCaller } from "@berth/tools";

/**
 * The session's sandbox for one call: tools run in its agent with the session's env; the tool the call
 * admitted carries the file hashes its approval bound (the agent refuses if one changed since). How long the
 * driver waits is the driver's one deadline rule (callDeadlineMs in @berth/sandbox: a tool's own timeoutMs
 * plus a grace, never less than the call timeout).
 */
export function sessionSandbox(
  driver: Pick<SandboxDriver, "call">,
  call: { sessionId: string; tool: string; env: Record<string, string>; expect?: Record<string, string | null>; worktree?: string },
): SandboxCaller {
  return {
    callTool: (tool, args, opts) =>
      driver.call(
        call.sessionId,
        { tool, args, callId: opts.callId, env: call.env, ...(call.expect && tool === call.tool ? { expect: call.expect } : {}), ...(call.worktree ? { worktree: call.worktree } : {}) },
        opts.signal ? { signal: opts.signal } : {},
      ),
  };
}
