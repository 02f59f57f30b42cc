import type { Repositories } from "@berth/db";
import type { SandboxDriver } from "@berth/sandbox";
import type { ScopedTools, ToolContext } from "@berth/tools";
import type { SessionView, ToolResult } from "@berth/protocol";
import type { RunnerEvents } from "../events/runner-events";
import type { ReceiptService } from "../receipts/receipt-service";
import { createMonitorHost } from "./monitor-host";
import { sessionSandbox } from "./session-sandbox";
import type { ToolCallInput } from "./tool-call-input";

/** The session a call runs in, as the spine read it (with its declared env). */
export type CallSession = SessionView & { env: Record<string, string> };

export interface ToolContextDeps {
  repos: Repositories;
  driver: SandboxDriver;
  events: RunnerEvents;
  receipts: ReceiptService;
  dataDir: string;
}

/** The calls a tool that reaches others makes (gateway call, a dispatch task): back through the spine, never around it. */
export interface NestedCalls {
  /** A capability under its own name, admitted on its own. */
  call(tool: string, args: unknown): Promise<ToolResult>;
  /** A task of the plan admission already approved as a whole. */
  callAdmitted(tool: string, args: unknown): Promise<ToolResult>;
  /** The direct surface (monitor mode=tools). */
  surface(): { name: string; description: string }[];
}

/**
 * Everything one execution may use: the session's sandbox (its env, the approval's file hashes), the
 * catalogue it may reach, and run monitoring scoped to the session.
 */
export function buildToolContext(
  deps: ToolContextDeps,
  call: {
    input: ToolCallInput;
    session: CallSession;
    tools: ScopedTools;
    /** The tool run and its validated arguments (its timeoutMs sets the driver's deadline). */
    tool: string;
    args: unknown;
    /** The call's id, or its run's id for a call that makes a run. */
    callId: string;
    signal?: AbortSignal;
    expect?: Record<string, string | null>;
    nested: NestedCalls;
  },
): ToolContext {
  const { input, session, signal } = call;
  return {
    sessionId: session.id,
    userId: input.principal.userId,
    callId: call.callId,
    caller: input.caller,
    sandbox: sessionSandbox(deps.driver, { sessionId: session.id, tool: call.tool, args: call.args, env: session.env, ...(call.expect ? { expect: call.expect } : {}) }),
    ...(signal ? { signal } : {}),
    ...(input.onProgress ? { onProgress: input.onProgress } : {}),
    host: {
      catalogue: () => call.tools.catalogue(),
      call: (tool, args) => call.nested.call(tool, args),
      callAdmitted: (tool, args) => call.nested.callAdmitted(tool, args),
    },
    monitor: createMonitorHost({
      repos: deps.repos,
      dataDir: deps.dataDir,
      receipts: deps.receipts,
      events: deps.events,
      sessionId: session.id,
      tools: () => call.nested.surface(),
    }),
  };
}
