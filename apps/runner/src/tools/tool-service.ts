import type { Repositories } from "@berth/db";
import type { SandboxDriver } from "@berth/sandbox";
import { admit, bindCallText, boundFilesOf, expectedHashes, renderCallText, sha256Hex, type AdmissionRegistry, type AdmissionResult, type ApprovalService, type LoopGuard, type ToolRouter, type ToolScope, type AnyToolSpec, type ToolContext } from "@berth/tools";
import type { ActionClass, ApprovalRequest, Autonomy, CallerKind, PolicyRule, ToolProgressListener, ToolResult } from "@berth/protocol";
import { AgentMethod, FilesHashResultSchema, redactSecrets, toolFailure } from "@berth/protocol";
import type { z } from "zod";
import { authorize } from "../auth/authorize";
import type { Principal } from "../auth/tokens";
import { newId } from "../auth/tokens";
import type { RunnerEvents } from "../events/runner-events";
import type { RunKind, RunService } from "../runs/run-service";
import type { SessionService } from "../sessions/session-service";
import type { RunnerMetrics } from "../metrics/runner-metrics";
import type { ReceiptService } from "../receipts/receipt-service";
import { createMonitorHost } from "./monitor-host";
import { loopGuardKey, reachableClasses } from "@berth/tools";
import { ProcessClasses } from "./process-classes";
import { WorkspaceGeneration, changesWorkspace } from "./workspace-generation";
import type { ActiveRuns } from "../runs/active-runs";
import { followRunProgress } from "../runs/run-progress";

export type CallVia = "http" | "socket" | "mcp";

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
}

interface CallRecord {
  id: string;
  verdict: string;
  ok?: boolean;
  errorCode?: string;
  runId?: string;
  approvalId?: string;
  durationMs?: number;
  trace?: unknown;
}

export type ToolCallOutcome =
  | { kind: "result"; result: ToolResult }
  | { kind: "parked"; approvalId: string; text: string; sha256: string; expiresAt: string };

/** The workspace root inside every sandbox. */
const WORKSPACE_ROOT = "/workspace";
/** Margin over a tool's own timeout before the driver gives up on the agent. */
const CALL_MARGIN_MS = 30_000;

/** Formats zod issues as "field: message" so an error names what was wrong. */
export function formatIssues(error: z.ZodError): string {
  return error.issues
    .map((issue) => `${issue.path.length ? issue.path.join(".") : "arguments"}: ${issue.message}`)
    .join("; ");
}

function runKindOf(tool: string, args: Record<string, unknown>, resolvedKind: string): RunKind {
  if (resolvedKind === "mcp") return "mcp";
  if (tool === "run_script") return "run_script";
  return args.action === "start" ? "process" : "bash";
}

/**
 * The one path every tool call takes, whoever the caller (browser, HTTP, MCP agent): resolve → admit
 * (policy, autonomy, loop guard) → park for approval or run → record the call, the run and its receipt.
 */
export class ToolService {
  private policyCache: PolicyRule[] | null = null;
  /** What the loop guard keys repeats on, and what `bash write` to a started process is admitted as. */
  private readonly generation: WorkspaceGeneration;
  private readonly processClasses: ProcessClasses;

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
      prepareScope?: (scope: ToolScope, tool: string) => Promise<{ unavailable: readonly unknown[] } | void>;
    },
  ) {
    this.generation = new WorkspaceGeneration(deps.driver);
    this.processClasses = new ProcessClasses(deps.driver);
  }

  /** Policy rules change rarely; the policy routes call this after a change. */
  invalidatePolicy(): void {
    this.policyCache = null;
  }

  private async policyRules(): Promise<PolicyRule[]> {
    if (this.policyCache) return this.policyCache;
    this.policyCache = await this.deps.repos.policyRules.listRules();
    return this.policyCache;
  }

  private registryFor(scope: ToolScope): AdmissionRegistry {
    const router = this.deps.router;
    return {
      has: (tool) => router.resolve(tool, scope) !== undefined,
      validate: (tool, args) => {
        const spec = router.resolve(tool, scope)?.spec;
        if (!spec) return { ok: false, message: `Unknown tool: ${tool}` };
        const parsed = spec.argsSchema.safeParse(args ?? {});
        return parsed.success ? { ok: true, args: parsed.data } : { ok: false, message: `${tool}: invalid arguments: ${formatIssues(parsed.error)}` };
      },
      actionClassOf: (tool, args) => {
        const resolved = router.resolve(tool, scope);
        if (!resolved) return "unknown";
        const classified = resolved.spec.classify(args);
        // A held MCP tool (schema changed since accepted) asks until an operator accepts it.
        return resolved.held ? { ...classified, alwaysAsk: true, reasons: [...classified.reasons, "tool schema changed since it was accepted"] } : classified;
      },
    };
  }

  /** The tools a session shows directly (REST GET /tools, MCP tools/list): built-ins only, so no MCP listing is needed. */
  surface(sessionId: string, principal: Principal): { name: string; description: string; parameters: Record<string, unknown>; outputSchema?: Record<string, unknown>; actionClass: string; reachesOthers?: boolean }[] {
    const scope: ToolScope = { userId: principal.userId, sessionId };
    return this.deps.router.directSurface(scope).map(({ spec }) => ({
      name: spec.name,
      description: spec.description,
      parameters: spec.parameters,
      ...(spec.outputSchema ? { outputSchema: spec.outputSchema } : {}),
      actionClass: safeClass(spec),
      ...(spec.reachesOthers ? { reachesOthers: true } : {}),
    }));
  }

  /** What gateway and dispatch can reach in this session (their MCP annotations): its catalogue, MCP tools listed, less what autonomy denies. */
  async reach(sessionId: string, principal: Principal): Promise<ActionClass[]> {
    const session = await this.deps.sessions.get(sessionId, principal);
    const scope: ToolScope = { userId: principal.userId, sessionId: session.id };
    const prepared = await this.deps.prepareScope?.(scope, "gateway");
    return reachableClasses(this.deps.router.catalogue(scope).map((tool) => tool.spec), session.autonomy as Autonomy, {
      unlistedServers: prepared?.unavailable.length ?? 0,
    });
  }

  async call(input: ToolCallInput): Promise<ToolCallOutcome> {
    const started = performance.now();
    // docs/api.md, Roles: toolCall call (a viewer's refusal is a 403, another developer's session a 404).
    const session = await this.deps.sessions.get(input.sessionId, input.principal, (target) => authorize(input.principal, "toolCall", "call", target));
    const scope: ToolScope = { userId: input.principal.userId, sessionId: session.id };
    await this.deps.prepareScope?.(scope, input.tool);
    const generation = this.generation.observedBy(session.id, input.tool, input.args);
    const admission = admit(
      // The session's owner in the browser acts as themselves (admit: autonomy does not ask them).
      { sessionId: session.id, tool: input.tool, args: input.args, caller: input.caller, ownSession: session.ownerId === input.principal.userId },
      {
        registry: this.registryFor(scope),
        autonomy: session.autonomy as Autonomy,
        workspaceRoot: WORKSPACE_ROOT,
        // /tmp is the container's own tmpfs: writing there touches nothing outside the sandbox.
        writableRoots: ["/tmp"],
        policyRules: await this.policyRules(),
        loopGuard: this.deps.loopGuard,
        workspaceGeneration: generation,
        processClass: (processId) => this.processClasses.classOf(session.id, processId),
      },
    );
    const callId = newId("call");
    const record = (fields: Omit<CallRecord, "id" | "durationMs">) =>
      this.recordCall(input, admission, { id: callId, durationMs: Math.round(performance.now() - started), ...fields }, Object.values(session.env));

    if (admission.verdict === "deny") {
      const code = admission.stage === "tool" ? "unknown_tool" : admission.stage === "arguments" ? "invalid_arguments" : "denied";
      const result = toolFailure(code, admission.reason, { stage: admission.stage, actionClass: admission.actionClass });
      await record({ verdict: "deny", ok: false, errorCode: code });
      this.deps.metrics.toolCall(admission.tool, "denied", performance.now() - started);
      return { kind: "result", result };
    }

    let approval: ApprovalRequest | undefined;
    let approvalWaitMs: number | null = null;
    let expect: Record<string, string | null> | undefined;
    if (admission.verdict === "ask") {
      // The approval binds the files the call runs or changes as they are now; execution checks them again.
      const bound = await this.bindFiles(scope, admission);
      expect = bound.expect;
      approval = await this.deps.approvals.consumeApproved(session.id, bound.sha256);
      if (!approval) {
        const parked = await this.deps.approvals.park({
          sessionId: session.id,
          tool: admission.tool,
          actionClass: admission.actionClass,
          text: bound.text,
          sha256: bound.sha256,
          requestedBy: input.principal.name,
        });
        const waitMs = input.waitMs ?? 0;
        if (waitMs <= 0) {
          await record({ verdict: "ask", approvalId: parked.id });
          this.deps.metrics.toolCall(admission.tool, "parked", performance.now() - started);
          return { kind: "parked", approvalId: parked.id, text: parked.text, sha256: parked.sha256, expiresAt: parked.expiresAt };
        }
        const waitStarted = Date.now();
        const outcome = await this.deps.approvals.waitForDecision(parked.id, waitMs, input.signal);
        approvalWaitMs = Date.now() - waitStarted;
        if (outcome.status === "approved") {
          const consumed = await this.deps.approvals.consume(parked.id, parked.sha256);
          if (consumed.ok) approval = consumed.request;
        }
        if (!approval) {
          if (outcome.status === "timeout" || outcome.status === "aborted") {
            await record({ verdict: "ask", approvalId: parked.id });
            return { kind: "parked", approvalId: parked.id, text: parked.text, sha256: parked.sha256, expiresAt: parked.expiresAt };
          }
          const code = outcome.status === "cancelled" ? "cancelled" : "denied";
          const result = toolFailure(code, `Approval ${parked.id} was ${"request" in outcome ? outcome.request.status : outcome.status}: the call did not run`, { approvalId: parked.id });
          await record({ verdict: "ask", ok: false, errorCode: code, approvalId: parked.id });
          return { kind: "result", result };
        }
      }
    }

    const result = await this.execute(admission, input, session.env, callId, approval, approvalWaitMs, approval ? expect : undefined);
    if (input.caller === "agent") {
      // The guard judges the next identical call against this one's result, unless something else changed meanwhile.
      const after = this.generation.observedBy(session.id, input.tool, input.args);
      const own = changesWorkspace({ actionClass: admission.actionClass, ok: result.ok }) ? 1 : 0;
      this.deps.loopGuard.settle(loopGuardKey(session.id, admission.sha256), { callId, ...(result.runId ? { runId: result.runId } : {}), generation: after === generation + own ? after : undefined });
    }
    await record({
      verdict: admission.verdict,
      ok: result.ok,
      ...(result.error ? { errorCode: result.error.code } : {}),
      ...(result.runId ? { runId: result.runId } : {}),
      ...(approval ? { approvalId: approval.id } : {}),
      trace: result.trace,
    });
    this.deps.metrics.toolCall(admission.tool, result.ok ? "ok" : "error", performance.now() - started);
    return { kind: "result", result };
  }

  private async execute(
    admission: AdmissionResult,
    input: ToolCallInput,
    env: Record<string, string>,
    callId: string,
    approval: ApprovalRequest | undefined,
    approvalWaitMs: number | null,
    /** The file hashes the approval bound (the agent refuses the call if a file changed since). */
    expect?: Record<string, string | null>,
  ): Promise<ToolResult> {
    const scope: ToolScope = { userId: input.principal.userId, sessionId: input.sessionId };
    const resolved = this.deps.router.resolve(admission.tool, scope);
    if (!resolved) return toolFailure("unknown_tool", `Unknown tool: ${admission.tool}`);
    // The schema changed between admission and now (a re-list in the background): it was not asked for.
    if (resolved.held && admission.verdict !== "ask") return toolFailure("mcp_tool_held", `${admission.tool} changed since it was admitted; call it again`);
    const spec: AnyToolSpec = resolved.spec;
    const args = admission.args as Record<string, unknown>;
    const approvals = approval
      ? [{ id: approval.id, approvedBy: approval.decidedBy ?? "operator", approvedAt: approval.decidedAt ?? new Date().toISOString(), sha256: approval.sha256 }]
      : [];

    let runId: string | undefined;
    if (spec.createsRun(args)) {
      runId = await this.deps.runs.start({
        sessionId: input.sessionId,
        userId: input.principal.userId,
        tool: spec.name,
        kind: runKindOf(spec.name, args, resolved.kind),
        args,
        actionClass: admission.actionClass,
        env: { ...env, ...((args.env as Record<string, string> | undefined) ?? {}) },
        approvals,
        approvalWaitMs,
        caller: input.caller,
      });
      input.onRunStarted?.(runId);
    }

    // A run's call aborts on the caller's signal or on an explicit cancel; its live output is its progress.
    const tracked = runId ? this.deps.activeRuns?.track(runId, input.sessionId, input.signal) : undefined;
    const signal = tracked?.signal ?? input.signal;
    const stopProgress = runId && input.onProgress ? followRunProgress(this.deps.events, runId, input.onProgress) : undefined;
    const inner: ToolCallInput = { ...input, ...(signal ? { signal } : {}) };
    const timeoutMs = typeof args.timeoutMs === "number" ? args.timeoutMs + CALL_MARGIN_MS : undefined;
    const ctx: ToolContext = {
      sessionId: input.sessionId,
      userId: input.principal.userId,
      callId: runId ?? callId,
      caller: input.caller,
      sandbox: {
        callTool: (tool, toolArgs, opts) =>
          this.deps.driver.call(
            input.sessionId,
            { tool, args: toolArgs, callId: opts.callId, env, ...(expect && tool === spec.name ? { expect } : {}) },
            { ...(timeoutMs ? { timeoutMs } : {}), ...(opts.signal ? { signal: opts.signal } : {}) },
          ),
      },
      ...(signal ? { signal } : {}),
      ...(input.onProgress ? { onProgress: input.onProgress } : {}),
      host: {
        catalogue: () => this.deps.router.catalogue(scope),
        call: async (tool, toolArgs) => {
          const outcome = await this.call({ ...inner, tool, args: toolArgs });
          return outcome.kind === "result" ? outcome.result : toolFailure("parked", `${tool} is waiting for operator approval ${outcome.approvalId} (sha256 ${outcome.sha256})`, { approvalId: outcome.approvalId });
        },
        callAdmitted: (tool, toolArgs) => this.runPlanTask(tool, toolArgs, withoutProgress(inner), env, admission, approval, approvalWaitMs),
      },
      monitor: createMonitorHost({
        repos: this.deps.repos,
        dataDir: this.deps.dataDir,
        receipts: this.deps.receipts,
        events: this.deps.events,
        sessionId: input.sessionId,
        tools: () => this.surface(input.sessionId, input.principal),
      }),
    };

    let result: ToolResult;
    try {
      result = await spec.run(args, ctx);
    } catch (error) {
      result = toolFailure("sandbox_error", (error as Error).message);
    } finally {
      tracked?.done();
      stopProgress?.();
    }

    if (runId) {
      const processId = result.ok && typeof result.details?.processId === "string" && args.action === "start" ? result.details.processId : undefined;
      if (processId) {
        await this.deps.runs.bindProcess(runId, processId);
        result = { ...result, runId };
      } else {
        const { receiptId } = await this.deps.runs.finish(runId, result);
        result = { ...result, runId, ...(receiptId ? { receiptId } : {}) };
      }
    }
    if (changesWorkspace({ actionClass: admission.actionClass, ok: result.ok })) this.generation.bump(input.sessionId);
    if (spec.name === "bash" && args.action === "start" && result.ok && typeof result.details?.processId === "string") this.processClasses.remember(input.sessionId, result.details.processId, admission);
    this.announceFileChanges(input.sessionId, spec.name, args, result);
    return result;
  }

  /**
   * A task of a dispatch plan. Admission judged every task when it judged the plan (and the operator
   * approved the plan text, which lists each task's args hash), so the task runs without a second ask;
   * its arguments are validated again and its run carries the plan's approval.
   */
  private async runPlanTask(
    tool: string,
    args: unknown,
    input: ToolCallInput,
    env: Record<string, string>,
    plan: AdmissionResult,
    approval: ApprovalRequest | undefined,
    approvalWaitMs: number | null,
  ): Promise<ToolResult> {
    const registry = this.registryFor({ userId: input.principal.userId, sessionId: input.sessionId });
    const task = plan.tasks?.find((t) => t.tool === tool && sameArgs(t, tool, args, registry));
    if (!task || task.verdict === "deny") return toolFailure("denied", `dispatch: task ${tool} is not part of the admitted plan`);
    const callId = newId("call");
    const result = await this.execute(task, { ...input, tool }, env, callId, approval, approvalWaitMs);
    await this.recordCall(input, task, {
      id: callId,
      verdict: "plan",
      ok: result.ok,
      ...(result.error ? { errorCode: result.error.code } : {}),
      ...(result.runId ? { runId: result.runId } : {}),
      ...(approval ? { approvalId: approval.id } : {}),
    }, Object.values(env));
    return result;
  }

  /**
   * An ask's text and hash with the files it binds (boundFilesOf) hashed by the agent now, and the hashes
   * execution must find. A call that binds no file keeps admission's text.
   */
  private async bindFiles(scope: ToolScope, admission: AdmissionResult): Promise<{ text: string; sha256: string; expect?: Record<string, string | null> }> {
    const files = this.deps.router.resolve(admission.tool, scope)?.kind === "builtin" ? boundFilesOf(admission.tool, admission.args) : undefined;
    if (!files || files.paths.length === 0 || !scope.sessionId) return { text: admission.text, sha256: admission.sha256 };
    try {
      const hashed = await this.deps.driver.request(
        scope.sessionId,
        AgentMethod.FilesHash,
        { paths: files.paths, ...(files.preview ? { preview: files.preview } : {}) },
        FilesHashResultSchema,
      );
      return { ...bindCallText(admission, hashed), expect: expectedHashes(hashed) };
    } catch (error) {
      // A path the agent will not hash (outside the workspace: /tmp) or a sandbox that is not up: the operator
      // is told the files are not bound, and the call itself fails or runs as it would have.
      const text = `${admission.text}\nfiles not bound: ${redactSecrets((error as Error).message)}`;
      return { text, sha256: sha256Hex(text) };
    }
  }

  /** One row per call: what was asked (redacted, the session's env values masked), how admission judged it, and how it ended. */
  private async recordCall(input: ToolCallInput, admission: AdmissionResult, fields: CallRecord, knownSecrets: string[] = []): Promise<void> {
    await this.deps.repos.toolCalls.record({
      id: fields.id,
      sessionId: input.sessionId,
      userId: input.principal.userId,
      caller: input.caller,
      via: input.via,
      tool: admission.tool,
      argsSha256: admission.sha256,
      args: admission.args,
      secrets: knownSecrets,
      actionClass: admission.actionClass,
      verdict: fields.verdict,
      approvalId: fields.approvalId ?? null,
      ok: fields.ok ?? null,
      errorCode: fields.errorCode ?? null,
      runId: fields.runId ?? null,
      durationMs: fields.durationMs ?? null,
      trace: fields.trace,
    });
  }

  /** Tells open IDEs which files changed, so the tree and editors refresh without polling. */
  private announceFileChanges(sessionId: string, tool: string, args: Record<string, unknown>, result: ToolResult): void {
    if (!result.ok && tool !== "run_script" && tool !== "bash") return;
    const details = (result.details ?? {}) as Record<string, unknown>;
    const paths: string[] = [];
    if ((tool === "write_file" || tool === "edit") && typeof details.path === "string") paths.push(details.path);
    if (tool === "apply_patch" && Array.isArray(details.fileChanges)) {
      for (const change of details.fileChanges as { path?: unknown }[]) if (typeof change.path === "string") paths.push(change.path);
    }
    // A command may have touched anything: "." asks clients to refresh the whole tree. bash list, read
    // and stop run no command, so they change nothing (the IDE lists processes on every load).
    const ranCommand = tool === "run_script" || (tool === "bash" && (args.action === "exec" || args.action === "start"));
    if (ranCommand || tool === "update_agents_md") paths.push(".");
    for (const path of paths) this.deps.events.emit("file:changed", { sessionId, path });
  }
}

/** A plan's tasks report no progress of their own: dispatch reports tasks done (their output would mix in). */
function withoutProgress(input: ToolCallInput): ToolCallInput {
  const { onProgress: _onProgress, ...rest } = input;
  return rest;
}

/** True when `args` validate to exactly the task admission judged. */
function sameArgs(task: AdmissionResult, tool: string, args: unknown, registry: AdmissionRegistry): boolean {
  const validated = registry.validate(tool, args);
  return validated.ok && renderCallText(tool, validated.args).sha256 === task.sha256;
}

function safeClass(spec: AnyToolSpec): string {
  try {
    return spec.classify({}).actionClass;
  } catch {
    return "unknown";
  }
}
