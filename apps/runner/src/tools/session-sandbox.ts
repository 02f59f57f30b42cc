import type { SandboxDriver } from "@berth/sandbox";
import type { SandboxCaller } from "@berth/tools";

/** Margin over a tool's own timeout before the driver gives up on the agent (the agent enforces the timeout itself). */
export const CALL_MARGIN_MS = 30_000;

/** The deadline the driver holds a call to: the tool's own `timeoutMs` plus the margin, or the driver's default. */
export function callDeadlineMs(args: unknown): number | undefined {
  const timeoutMs = typeof args === "object" && args !== null ? (args as { timeoutMs?: unknown }).timeoutMs : undefined;
  return typeof timeoutMs === "number" ? timeoutMs + CALL_MARGIN_MS : undefined;
}

/**
 * The session's sandbox for one call: tools run in its agent with the session's env; the tool the call
 * admitted carries the file hashes its approval bound (the agent refuses if one changed since).
 */
export function sessionSandbox(
  driver: Pick<SandboxDriver, "call">,
  call: { sessionId: string; tool: string; args: unknown; env: Record<string, string>; expect?: Record<string, string | null> },
): SandboxCaller {
  const timeoutMs = callDeadlineMs(call.args);
  return {
    callTool: (tool, args, opts) =>
      driver.call(
        call.sessionId,
        { tool, args, callId: opts.callId, env: call.env, ...(call.expect && tool === call.tool ? { expect: call.expect } : {}) },
        { ...(timeoutMs ? { timeoutMs } : {}), ...(opts.signal ? { signal: opts.signal } : {}) },
      ),
  };
}
