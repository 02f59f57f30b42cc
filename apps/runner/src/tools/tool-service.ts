import type { Repositories } from "@berth/db";
import type { SandboxDriver } from "@berth/sandbox";
import {
  DEFAULT_OBSERVATION_LIMITS,
  UNOBSERVED_LIMITS,
  ObservationTurn,
  ScopedTools,
  admit,
  loopGuardKey,
  observationCapOf,
  reachableClasses,
  renderCallText,
  shownClassOf,
  type AdmissionResult,
  type ApprovalService,
  type LoopGuard,
  type ObservationLimits,
  type ToolRouter,
  type ToolScope,
  type FunctionToolsReport,
} from "@berth/tools";
import type { ActionClass, ApprovalRequest, Autonomy, ToolResult } from "@berth/protocol";
import { AgentMethod, BuiltinTool, DispatchPlanSchema, FilesHashResultSchema, WORKSPACE_ROOT, toolFailure } from "@berth/protocol";
import { authorize, type Target } from "../auth/authorize";
import type { Principal } from "../auth/tokens";
import { newId } from "../auth/tokens";
import type { RunnerEvents } from "../events/runner-events";
import type { RunService } from "../runs/run-service";
import type { SessionService } from "../sessions/session-service";
import type { RunnerMetrics } from "../metrics/runner-metrics";
import type { ReceiptService } from "../receipts/receipt-service";
import type { ActiveRuns } from "../runs/active-runs";
import { followRunProgress } from "../runs/run-progress";
import type { SkillsService } from "../skills/skills-service";
import { ApprovalWait, type TaskExpect } from "./approval-wait";
import type { ObservationOverflow } from "./observation-overflow";
import type { RunLogStore } from "../cluster/run-log-store";
import { PolicyRuleCache } from "./policy-rule-cache";
import { ProcessClasses } from "./process-classes";
import type { SessionLimits } from "./session-context-host";
import type { ToolCallInput, ToolCallOutcome } from "./tool-call-input";
import { ToolCallLog, type CallRecord } from "./tool-call-log";
import { buildToolContext, type CallSession, type ToolContextDeps } from "./tool-context-builder";
import { ToolGate, type RequestAllowlist } from "./tool-gate";
import { WorkspaceGeneration, changesWorkspace } from "./workspace-generation";

export type { CallVia, ToolCallInput, ToolCallOutcome } from "./tool-call-input";

/** An approval the call runs under, if it asked: the operator's decision, how long it waited, the file hashes it bound. */
interface Approved {
  approval?: ApprovalRequest;
  waitMs: number | null;
  expect?: Record<string, string | null>;
  /** A dispatch plan's: its function tools' scripts as hashed before admission, by tool; each task runs those bytes. */
  taskScripts?: Readonly<Record<string, HashedScript>>;
  /** An approved plan's: the files each task must find when it runs, by its index in the plan (approval-wait.ts). */
  taskExpect?: TaskExpect;
}

/** A workspace script a call runs, as the agent hashed it before admission. */
interface HashedScript {
  path: string;
  sha256: string;
}

/** The scripts an operator's rule may trust in a call: its own (a function tool), or its plan's tasks' by tool name. */
interface CallScripts {
  /** Null: the script could not be hashed (missing, too large, the sandbox did not answer); no rule vouches for it. */
  own?: { path: string; sha256: string | null };
  /** A plan's tasks' scripts that were hashed, by tool; absent when there are none. */
  tasks?: Record<string, HashedScript>;
}

/** A call no rule trusts a script of. */
const NO_SCRIPTS: CallScripts = Object.freeze({});

/**
 * The one path every tool call takes, whoever the caller (browser, HTTP, MCP agent): the edge hands it a
 * call → admission (the tool resolved once, policy, autonomy, loop guard) → the approval wait for an ask →
 * execution (run row, the tool, its result) → the call's record. Nothing on the way calls back up into it;
 * a tool that calls others (gateway, dispatch) starts a new call here.
 */
export class ToolService {
  /** What the loop guard keys repeats on, and what `bash write` to a started process is admitted as. */
  private readonly generation: WorkspaceGeneration;
  private readonly processClasses: ProcessClasses;
  private readonly policy: PolicyRuleCache;
  private readonly log: ToolCallLog;
  private readonly approvalWait: ApprovalWait;
  /** What every call's tool context is built from (made once: the deps do not change). */
  private readonly contextDeps: ToolContextDeps;

  constructor(
    private readonly deps: {
      repos: Repositories;
      driver: SandboxDriver;
      router: ToolRouter;
      sessions: SessionService;
      runs: RunService;
      approvals: ApprovalService;
      loopGuard: LoopGuard;
      events: RunnerEvents;
      metrics: RunnerMetrics;
      receipts: ReceiptService;
      dataDir: string;
      /** Runs in flight, so an explicit cancel (Stop) can abort one. */
      activeRuns?: ActiveRuns;
      /** Connects and lists the scope's MCP servers before a call of `tool` (the router answers from that listing). */
      prepareScope?: (scope: ToolScope, tool: string, opts?: { nested?: boolean }) => Promise<{ unavailable: readonly unknown[] } | void> | undefined;
      /** Skills that govern: the session's active skills narrow what it may call. */
      skills: SkillsService;
      /** Full copies of results the observation budget cut, for `context recall`. */
      overflow: ObservationOverflow;
      /** Where run logs live (another runner's run is copied here before `monitor` reads it). */
      logs?: Pick<RunLogStore, "ready">;
      /** Per-call caps and the per-turn pool of the observing tools (docs/tools.md, Observation budget). */
      observation?: ObservationLimits;
      /** What `context settings` shows of the MCP limits. */
      limits?: SessionLimits;
      /** Each session's berth.tools.json, for `context workspace` (the router resolves the tools themselves). */
      functionTools?: { report(sessionId: string): Promise<FunctionToolsReport | undefined>; problems(sessionId: string): string[] };
    },
  ) {
    this.generation = new WorkspaceGeneration(deps.driver);
    this.processClasses = new ProcessClasses(deps.driver);
    this.policy = new PolicyRuleCache(deps.repos);
    this.log = new ToolCallLog(deps.repos);
    this.approvalWait = new ApprovalWait({ approvals: deps.approvals, driver: deps.driver });
    this.contextDeps = { ...deps, policyRules: () => this.policy.get() };
  }

  /** What a caller may reach in a session now: its request's allowlist and the session's active skills. */
  async gateFor(sessionId: string, allow?: RequestAllowlist): Promise<ToolGate> {
    return new ToolGate(allow, await this.deps.skills.narrowing(sessionId));
  }

  /** The same gate without waiting, when the session's active skills are known now (undefined: ask `gateFor`). */
  private gateNow(sessionId: string, allow?: RequestAllowlist): ToolGate | undefined {
    const narrowing = this.deps.skills.narrowingNow(sessionId);
    return narrowing === undefined ? undefined : new ToolGate(allow, narrowing);
  }

  /** Why a direct tool of the session is kept from this caller (allowlist, active skill); undefined when not. */
  async hiddenReason(sessionId: string, principal: Principal, allow: RequestAllowlist | undefined, name: string): Promise<string | undefined> {
    if (!this.surface(sessionId, principal).some((tool) => tool.name === name)) return undefined;
    return (await this.gateFor(sessionId, allow)).refusal(name, { kind: "builtin", origin: "builtin" });
  }

  /** The direct surface as this caller sees it (MCP tools/list, REST GET /tools): less what its gate keeps out. */
  async allowedSurface(sessionId: string, principal: Principal, allow?: RequestAllowlist): Promise<ReturnType<ToolService["surface"]>> {
    const gate = await this.gateFor(sessionId, allow);
    return this.surface(sessionId, principal).filter((tool) => gate.refusal(tool.name, { kind: "builtin", origin: "builtin" }) === undefined);
  }

  /** Policy rules change rarely; the policy routes call this after a change. */
  invalidatePolicy(): void {
    this.policy.invalidate();
  }

  /** The tools a session shows directly (REST GET /tools, MCP tools/list): built-ins only, so no MCP listing is needed. */
  surface(sessionId: string, principal: Principal): { name: string; description: string; parameters: Record<string, unknown>; outputSchema?: Record<string, unknown>; actionClass: string; reachesOthers?: boolean }[] {
    const scope: ToolScope = { userId: principal.userId, sessionId };
    return this.deps.router.directSurface(scope).map(({ spec }) => ({
      name: spec.name,
      description: spec.description,
      parameters: spec.parameters,
      ...(spec.outputSchema ? { outputSchema: spec.outputSchema } : {}),
      actionClass: shownClassOf(spec),
      ...(spec.reachesOthers ? { reachesOthers: true } : {}),
    }));
  }

  /** What gateway and dispatch can reach in this session (their MCP annotations): its catalogue, MCP tools listed, less what autonomy denies. */
  async reach(sessionId: string, principal: Principal): Promise<ActionClass[]> {
    const session = await this.deps.sessions.get(sessionId, principal);
    const scope: ToolScope = { userId: principal.userId, sessionId: session.id };
    const prepared = await this.deps.prepareScope?.(scope, BuiltinTool.gateway);
    return reachableClasses(this.deps.router.catalogue(scope).map((tool) => tool.spec), session.autonomy as Autonomy, {
      unlistedServers: prepared?.unavailable.length ?? 0,
    });
  }

  async call(input: ToolCallInput): Promise<ToolCallOutcome> {
    const started = performance.now();
    // Edge: docs/api.md, Roles: toolCall call (a viewer's refusal is a 403, another developer's session a 404).
    const may = (target: Target) => authorize(input.principal, "toolCall", "call", target);
    const session = this.deps.sessions.getNow(input.sessionId, may) ?? (await this.deps.sessions.get(input.sessionId, input.principal, may));
    const scope: ToolScope = { userId: input.principal.userId, sessionId: session.id };
    // A nested call (it comes with its turn) runs in the scope its outer call prepared.
    const preparing = this.deps.prepareScope?.(scope, input.tool, { nested: input.turn !== undefined });
    if (preparing) await preparing;
    // A nested call (gateway, dispatch) keeps its turn's pool; the gate is asked again (a skill may have changed).
    const gate = this.gateNow(session.id, input.allow) ?? (await this.gateFor(session.id, input.allow));
    const limits = input.caller === "browser" ? UNOBSERVED_LIMITS : (this.deps.observation ?? DEFAULT_OBSERVATION_LIMITS);
    input = { ...input, gate, turn: input.turn ?? new ObservationTurn(limits) };
    const tools = new ScopedTools(this.deps.router, scope);

    // Admission: pure; the tool is resolved here once and the same resolution runs.
    const generation = this.generation.observedBy(session.id, input.tool, input.args);
    const policy = this.policy.now() ?? (await this.policy.load());
    const policyRules = policy.rules;
    // A function tool's script (or a plan's tasks'), hashed before admission: an operator's allow rule names the bytes
    // it trusts. Most deployments trust no script by its bytes: then nothing is hashed or waited for.
    const { own: script, tasks: taskScripts } = policy.scriptTools.size > 0 ? await this.scriptsOf(session.id, tools, input.tool, input.args, policy.scriptTools) : NO_SCRIPTS;
    const admission = admit(
      // The session's owner in the browser acts as themselves (admit: autonomy does not ask them).
      {
        sessionId: session.id,
        tool: input.tool,
        args: input.args,
        caller: input.caller,
        ownSession: session.ownerId === input.principal.userId,
        scriptSha256: script?.sha256 ?? undefined,
        taskScripts,
      },
      {
        registry: tools,
        autonomy: session.autonomy as Autonomy,
        workspaceRoot: WORKSPACE_ROOT,
        // /tmp is the container's own tmpfs: writing there touches nothing outside the sandbox.
        writableRoots: ["/tmp"],
        policyRules,
        loopGuard: this.deps.loopGuard,
        workspaceGeneration: generation,
        processClass: this.processClasses.of(session.id),
      },
    );
    const callId = newId("call");
    // Each call site writes its fields in full (no spreads: this runs on every call's reply path).
    const record = (fields: Omit<CallRecord, "id" | "durationMs">) => {
      const row: CallRecord = { id: callId, durationMs: Math.round(performance.now() - started), verdict: fields.verdict, ok: fields.ok, errorCode: fields.errorCode, runId: fields.runId, approvalId: fields.approvalId, trace: fields.trace };
      this.log.record(input, admission, row, Object.values(session.env));
    };

    const outside = admission.verdict === "deny" ? undefined : gate.refusal(admission.tool, tools.resolve(admission.tool));
    if (outside) {
      record({ verdict: "deny", ok: false, errorCode: "denied" });
      this.deps.metrics.toolCall(admission.tool, "denied", performance.now() - started);
      return { kind: "result", result: toolFailure("denied", outside, { stage: "allowlist", actionClass: admission.actionClass }) };
    }
    if (admission.verdict === "deny") {
      const code = admission.stage === "tool" ? "unknown_tool" : admission.stage === "arguments" ? "invalid_arguments" : "denied";
      const result = toolFailure(code, admission.reason, { stage: admission.stage, actionClass: admission.actionClass });
      record({ verdict: "deny", ok: false, errorCode: code });
      this.deps.metrics.toolCall(admission.tool, "denied", performance.now() - started);
      return { kind: "result", result };
    }

    // Approval wait: an ask binds its files, then runs under an approval or is parked. A script an operator's rule
    // trusts runs only as the bytes that were hashed (the agent refuses it as changed otherwise).
    let approved: Approved = { waitMs: null, expect: admission.verdict === "allow" && script?.sha256 ? { [script.path]: script.sha256 } : undefined, taskScripts };
    if (admission.verdict === "ask") {
      const settled = await this.approvalWait.settle(admission, {
        sessionId: session.id,
        tool: tools.resolve(admission.tool),
        resolve: (tool) => tools.resolve(tool),
        requestedBy: input.principal.name,
        waitMs: input.waitMs ?? 0,
        ...(input.signal ? { signal: input.signal } : {}),
      });
      if (settled.kind === "parked") {
        const { parked } = settled;
        record({ verdict: "ask", approvalId: parked.id });
        if (!settled.waited) this.deps.metrics.toolCall(admission.tool, "parked", performance.now() - started);
        return { kind: "parked", approvalId: parked.id, text: parked.text, sha256: parked.sha256, expiresAt: parked.expiresAt };
      }
      if (settled.kind === "refused") {
        record({ verdict: "ask", ok: false, errorCode: settled.result.error?.code ?? "denied", approvalId: settled.approvalId });
        return { kind: "result", result: settled.result };
      }
      approved = { approval: settled.approval, waitMs: settled.waitMs, expect: settled.expect, taskExpect: settled.taskExpect, taskScripts };
    }

    // Execution, then the record.
    const result = await this.execute(tools, admission, input, session, callId, approved);
    if (input.caller === "agent") {
      // The guard judges the next identical call against this one's result, unless something else changed meanwhile.
      const after = this.generation.observedBy(session.id, input.tool, input.args);
      const own = changesWorkspace({ actionClass: admission.actionClass, ok: result.ok }) ? 1 : 0;
      this.deps.loopGuard.settle(loopGuardKey(session.id, admission.sha256), { callId, ...(result.runId ? { runId: result.runId } : {}), generation: after === generation + own ? after : undefined });
    }
    record({ verdict: admission.verdict, ok: result.ok, errorCode: result.error?.code, runId: result.runId, approvalId: approved.approval?.id, trace: result.trace });
    this.deps.metrics.toolCall(admission.tool, result.ok ? "ok" : "error", performance.now() - started);
    return { kind: "result", result };
  }

  /**
   * The workspace scripts a call runs that an operator's rule may trust, as the agent reads them now: a function
   * tool's own, or for a dispatch plan each of its tasks' function tools' (by tool name; a task whose script cannot be
   * hashed is left out, so no rule vouches for it). Only a tool in `trusted` (some policy rule names a script for it)
   * is hashed.
   */
  private async scriptsOf(sessionId: string, tools: ScopedTools, tool: string, args: unknown, trusted: ReadonlySet<string>): Promise<CallScripts> {
    const scriptPathOf = (name: string, taskArgs: unknown) => (trusted.has(name) ? tools.resolve(name)?.spec.trustedScript?.(taskArgs as never) : undefined);
    const own = scriptPathOf(tool, args);
    const tasks = new Map<string, string>();
    if (own === undefined && tools.resolve(tool)?.spec.plansCalls) {
      const plan = DispatchPlanSchema.safeParse(args);
      for (const task of plan.success ? [...plan.data.tasks, ...(plan.data.checks ?? [])] : []) {
        const path = scriptPathOf(task.tool, task.args);
        if (path !== undefined) tasks.set(task.tool, path);
      }
    }
    const paths = [...new Set([...(own === undefined ? [] : [own]), ...tasks.values()])];
    if (paths.length === 0) return {};
    const hashes = new Map<string, string | null>();
    try {
      const hashed = await this.deps.driver.request(sessionId, AgentMethod.FilesHash, { paths }, FilesHashResultSchema);
      hashed.files.forEach((file, i) => hashes.set(paths[i]!, file.sha256 ?? null));
    } catch {
      // A sandbox that does not answer: no rule can vouch for a script, and the call goes on to what it meets.
    }
    const found: Record<string, HashedScript> = {};
    for (const [name, path] of tasks) {
      const sha256 = hashes.get(path);
      if (sha256) found[name] = { path, sha256 };
    }
    return { ...(own === undefined ? {} : { own: { path: own, sha256: hashes.get(own) ?? null } }), ...(Object.keys(found).length > 0 ? { tasks: found } : {}) };
  }

  /** Runs an admitted call: its run row when it makes one, the tool itself, the run's end, and what it changed. */
  private async execute(tools: ScopedTools, admission: AdmissionResult, input: ToolCallInput, session: CallSession, callId: string, approved: Approved): Promise<ToolResult> {
    const resolved = tools.resolve(admission.tool);
    if (!resolved) return toolFailure("unknown_tool", `Unknown tool: ${admission.tool}`);
    // An MCP tool's schema changed between admission and now (a re-list in the background): it was not asked for.
    if (admission.verdict !== "ask" && tools.isHeldNow(admission.tool)) return toolFailure("mcp_tool_held", `${admission.tool} changed since it was admitted; call it again`);
    const { spec } = resolved;
    const args = admission.args as Record<string, unknown>;
    const { approval } = approved;
    // Sent to the background (dispatch background=true): the answer names the run as soon as it exists, and the
    // run goes on without the caller (its signal and progress); only an explicit cancel (Stop) ends it early.
    const answer = input.detached || !spec.createsRun(args) ? undefined : spec.detach?.(args);
    if (answer) {
      const { signal: _signal, onProgress: _onProgress, ...alone } = input;
      const runId = await new Promise<string>((resolve, reject) => {
        const onRunStarted = (id: string) => (input.onRunStarted?.(id), resolve(id));
        this.execute(tools, admission, { ...alone, detached: true, onRunStarted }, session, callId, approved).then(() => reject(new Error(`${spec.name} ended without a run`)), reject);
      });
      return { ...answer(runId), runId };
    }

    let runId: string | undefined;
    // A compete or review task is a run even when its tool makes none (apply_patch): each candidate has a receipt.
    const planTaskRun = input.worktree !== undefined && !spec.createsRun(args);
    if (spec.createsRun(args) || planTaskRun) {
      runId = await this.deps.runs.start({
        sessionId: session.id,
        userId: input.principal.userId,
        tool: spec.name,
        kind: planTaskRun ? "dispatch" : (spec.runKind?.(args) ?? "mcp"),
        args,
        actionClass: admission.actionClass,
        // A function tool's `env` argument is its own parameter, not a declared environment (it runs with the session's).
        env: { ...session.env, ...(spec.runsAs ? {} : ((args.env as Record<string, string> | undefined) ?? {})) },
        approvals: approval ? [{ id: approval.id, approvedBy: approval.decidedBy ?? "operator", approvedAt: approval.decidedAt ?? new Date().toISOString(), sha256: approval.sha256 }] : [],
        approvalWaitMs: approved.waitMs,
        caller: input.caller,
      });
      input.onRunStarted?.(runId);
    }

    // A run's call aborts on the caller's signal or on an explicit cancel; its live output is its progress.
    const tracked = runId ? this.deps.activeRuns?.track(runId, session.id, input.signal) : undefined;
    const signal = tracked?.signal ?? input.signal;
    const stopProgress = runId && input.onProgress ? followRunProgress(this.deps.events, runId, input.onProgress) : undefined;
    // What a nested call inherits (made only when a tool makes one).
    const inner = (): ToolCallInput => ({ ...input, ...(signal ? { signal } : {}) });
    const ctx = buildToolContext(
      this.contextDeps,
      {
        input,
        session,
        tools,
        tool: spec.runsAs ?? spec.name,
        callId: runId ?? callId,
        ...(signal ? { signal } : {}),
        ...(approved.expect ? { expect: approved.expect } : {}),
        ...(approval ? { approvedText: approval.text } : {}),
        nested: {
          call: async (tool, toolArgs) => {
            const outcome = await this.call({ ...inner(), tool, args: toolArgs });
            return outcome.kind === "result" ? outcome.result : toolFailure("parked", `${tool} is waiting for operator approval ${outcome.approvalId} (sha256 ${outcome.sha256})`, { approvalId: outcome.approvalId });
          },
          callAdmitted: (tool, toolArgs, opts) => this.runPlanTask(tools, tool, toolArgs, { ...withoutProgress(inner()), ...(opts?.worktree ? { worktree: opts.worktree } : {}) }, session, admission, approved),
          surface: () => this.surface(session.id, input.principal),
        },
      },
    );

    // An observing call draws from its turn's pool: a spent pool answers without running the tool.
    const turn = input.turn;
    const cap = turn ? observationCapOf(turn.limits, spec.name, args) : undefined;
    const exhausted = cap === undefined ? undefined : turn?.refusal(spec.name);
    let result: ToolResult;
    try {
      result = exhausted ?? (await spec.run(args, ctx));
      if (turn && cap !== undefined && !exhausted) {
        const fitted = turn.fit(spec.name, cap, result, (tool, text) => this.deps.overflow.save(session.id, tool, text));
        result = fitted instanceof Promise ? await fitted : fitted;
      }
    } catch (error) {
      result = toolFailure("sandbox_error", (error as Error).message);
    } finally {
      tracked?.done();
      stopProgress?.();
    }

    const processId = spec.startedProcess?.(args, result);
    if (runId) {
      if (processId) {
        await this.deps.runs.bindProcess(runId, processId);
        result = { ...result, runId };
      } else {
        const { receiptId } = await this.deps.runs.finish(runId, result);
        result = { ...result, runId, ...(receiptId ? { receiptId } : {}) };
      }
    }
    if (changesWorkspace({ actionClass: admission.actionClass, ok: result.ok })) this.generation.bump(session.id);
    if (processId) this.processClasses.remember(session.id, processId, admission);
    // Tells open IDEs which files changed, so the tree and editors refresh without polling.
    // A task in a compete tree changed that tree, not the workspace the IDE shows.
    for (const path of input.worktree ? [] : (spec.changedPaths?.(args, result) ?? [])) this.deps.events.emit("file:changed", { sessionId: session.id, path });
    return result;
  }

  /**
   * A task of a dispatch plan. Admission judged every task when it judged the plan (and the operator
   * approved the plan text, which lists each task's args hash), so the task runs without a second ask;
   * its arguments are validated again and its run carries the plan's approval.
   */
  private async runPlanTask(tools: ScopedTools, tool: string, args: unknown, input: ToolCallInput, session: CallSession, plan: AdmissionResult, approved: Approved): Promise<ToolResult> {
    const index = plan.tasks?.findIndex((t) => t.tool === tool && sameArgs(t, tool, args, tools)) ?? -1;
    const task = plan.tasks?.[index];
    if (!task || task.verdict === "deny") return toolFailure("denied", `dispatch: task ${tool} is not part of the admitted plan`);
    const outside = input.gate?.refusal(tool, tools.resolve(tool));
    if (outside) return toolFailure("denied", `dispatch: ${outside}`);
    const callId = newId("call");
    // An approved plan's text bound its tasks' files: a task no other task may change the files of runs only on the
    // bytes approved. A function tool whose script was hashed before admission (an operator's rule may have trusted
    // it) runs exactly those bytes.
    const script = approved.taskScripts?.[tool];
    const expect = { ...approved.taskExpect?.get(index), ...(script ? { [script.path]: script.sha256 } : {}) };
    const result = await this.execute(tools, task, { ...input, tool }, session, callId, {
      ...(approved.approval ? { approval: approved.approval } : {}),
      waitMs: approved.waitMs,
      ...(Object.keys(expect).length > 0 ? { expect } : {}),
    });
    this.log.record(input, task, { id: callId, verdict: "plan", ok: result.ok, errorCode: result.error?.code, runId: result.runId, approvalId: approved.approval?.id }, Object.values(session.env));
    return result;
  }
}

/** A plan's tasks report no progress of their own: dispatch reports tasks done (their output would mix in). */
function withoutProgress(input: ToolCallInput): ToolCallInput {
  const { onProgress: _onProgress, ...rest } = input;
  return rest;
}

/** True when `args` validate to exactly the task admission judged. */
function sameArgs(task: AdmissionResult, tool: string, args: unknown, tools: ScopedTools): boolean {
  const validated = tools.validate(tool, args);
  return validated.ok && renderCallText(tool, validated.args).sha256 === task.sha256;
}
