import type { Repositories } from "@berth/db";
import type { SandboxDriver } from "@berth/sandbox";
import type { FunctionToolsReport, ObservationTurn, ScopedTools, ToolContext } from "@berth/tools";
import { WORKSPACE_ROOT, type PolicyRule, type SessionView, type ToolResult } from "@berth/protocol";
import type { RunLogStore } from "../cluster/run-log-store";
import type { RunnerEvents } from "../events/runner-events";
import type { ReceiptService } from "../receipts/receipt-service";
import type { SkillsService } from "../skills/skills-service";
import { createCompeteTreesHost } from "./dispatch-trees";
import { createMonitorHost } from "./monitor-host";
import type { ObservationOverflow } from "./observation-overflow";
import { createSessionContextHost, type SessionLimits } from "./session-context-host";
import { sessionSandbox } from "./session-sandbox";
import type { ToolCallInput } from "./tool-call-input";
import type { ToolGate } from "./tool-gate";

/** The session a call runs in, as the spine read it (with its declared env). */
export type CallSession = SessionView & { env: Record<string, string> };

export interface ToolContextDeps {
  repos: Repositories;
  driver: SandboxDriver;
  events: RunnerEvents;
  receipts: ReceiptService;
  dataDir: string;
  skills: SkillsService;
  overflow: ObservationOverflow;
  /** Where run logs live: `monitor` reads a run's log once this runner's files hold it. */
  logs?: Pick<RunLogStore, "ready">;
  limits?: SessionLimits;
  policyRules: () => Promise<PolicyRule[]>;
  /** Each session's berth.tools.json, for `context workspace`. */
  functionTools?: { report(sessionId: string): Promise<FunctionToolsReport | undefined>; problems(sessionId: string): string[] };
}

/** The calls a tool that reaches others makes (gateway call, a dispatch task): back through the spine, never around it. */
export interface NestedCalls {
  /** A capability under its own name, admitted on its own. */
  call(tool: string, args: unknown): Promise<ToolResult>;
  /** A task of the plan admission already approved as a whole (in a compete tree when `worktree` names one). */
  callAdmitted(tool: string, args: unknown, opts?: { worktree?: string }): Promise<ToolResult>;
  /** The direct surface (monitor mode=tools). */
  surface(): { name: string; description: string }[];
}

/** One execution's call, as the tool context is built from it. */
interface ContextCall {
  input: ToolCallInput;
  session: CallSession;
  tools: ScopedTools;
  /** The tool run (the one whose approval bound `expect`). */
  tool: string;
  /** The call's id, or its run's id for a call that makes a run. */
  callId: string;
  signal?: AbortSignal;
  expect?: Record<string, string | null>;
  /** The text of the approval the call runs under, if it asked. */
  approvedText?: string;
  nested: NestedCalls;
}

/**
 * Everything one execution may use: the session's sandbox (its env, the approval's file hashes), the
 * catalogue its gate allows, run monitoring scoped to the session, and `context`'s view of the session.
 */
export function buildToolContext(deps: ToolContextDeps, call: ContextCall): ToolContext {
  return new CallToolContext(deps, call);
}

/**
 * A class, so a call builds one plain object: the hosts only a few tools use (nested calls, dispatch trees, monitor,
 * context) are getters on its prototype, made when a tool first reads them (a read_file never does).
 */
class CallToolContext implements ToolContext {
  readonly sessionId: string;
  readonly userId: string;
  readonly callId: string;
  readonly caller: ToolCallInput["caller"];
  readonly sandbox: ToolContext["sandbox"];
  readonly signal: AbortSignal | undefined;
  readonly approvedText: string | undefined;
  readonly onProgress: ToolContext["onProgress"];
  #host: ToolContext["host"];
  #trees: ToolContext["trees"];
  #monitor: ToolContext["monitor"];
  #context: ToolContext["context"];

  constructor(
    private readonly deps: ToolContextDeps,
    private readonly call: ContextCall,
  ) {
    const { input, session } = call;
    this.sessionId = session.id;
    this.userId = input.principal.userId;
    this.callId = call.callId;
    this.caller = input.caller;
    this.sandbox = sessionSandbox(deps.driver, { sessionId: session.id, tool: call.tool, env: session.env, ...(call.expect ? { expect: call.expect } : {}), ...(input.worktree ? { worktree: input.worktree } : {}) });
    this.signal = call.signal;
    this.approvedText = call.approvedText;
    this.onProgress = input.onProgress;
  }

  get host(): ToolContext["host"] {
    const { call, deps } = this;
    const { input } = call;
    return (this.#host ??= {
      catalogue: () => call.tools.catalogue().filter((tool) => input.gate?.allows(tool) ?? true),
      refusal: (name) => {
        const resolved = call.tools.resolve(name);
        return resolved ? input.gate?.refusal(name, resolved) : undefined;
      },
      notices: () => deps.functionTools?.problems(call.session.id) ?? [],
      call: (tool, args) => call.nested.call(tool, args),
      callAdmitted: (tool, args, opts) => call.nested.callAdmitted(tool, args, opts),
    });
  }

  get trees(): ToolContext["trees"] {
    return (this.#trees ??= createCompeteTreesHost({ driver: this.deps.driver, repos: this.deps.repos, sessionId: this.sessionId }));
  }

  get monitor(): ToolContext["monitor"] {
    const { deps, call } = this;
    return (this.#monitor ??= createMonitorHost({
      repos: deps.repos,
      dataDir: deps.dataDir,
      receipts: deps.receipts,
      events: deps.events,
      sessionId: this.sessionId,
      tools: () => call.nested.surface(),
      ...(deps.logs ? { logs: deps.logs } : {}),
    }));
  }

  get context(): ToolContext["context"] {
    const { input, session } = this.call;
    if (input.turn === undefined || input.gate === undefined) return undefined;
    return (this.#context ??= contextHost(this.deps, input, session, input.turn, input.gate));
  }
}

/** `context` for this call: its session, principal, gate and turn. */
function contextHost(deps: ToolContextDeps, input: ToolCallInput, session: CallSession, turn: ObservationTurn, gate: ToolGate) {
  const functionTools = deps.functionTools;
  return createSessionContextHost({
    session,
    userId: input.principal.userId,
    // A person at the keyboard in their own session, or an operator: may turn manual skills on and off; an agent never.
    mayActivateManual:
      input.caller !== "agent" &&
      ((input.caller === "browser" && session.ownerId === input.principal.userId) || input.principal.role === "operator" || input.principal.role === "admin"),
    workspaceRoot: WORKSPACE_ROOT,
    driver: deps.driver,
    skills: deps.skills,
    overflow: deps.overflow,
    turn,
    gate,
    limits: deps.limits ?? { mcpApprovalWaitMs: 120_000, mcpCallTimeoutMs: 60_000 },
    policyRules: deps.policyRules,
    ...(functionTools ? { functionTools: () => functionTools.report(session.id) } : {}),
  });
}
