import type { SandboxDriver } from "@berth/sandbox";
import { bindCallText, expectedHashes, sha256Hex, type AdmissionResult, type ApprovalService, type ResolvedTool } from "@berth/tools";
import type { ApprovalRequest, ToolResult } from "@berth/protocol";
import { AgentMethod, FilesHashResultSchema, TreeIdentitySchema, TreeMethod, redactSecrets, toolFailure, type FilesHashResult } from "@berth/protocol";

/** How an `ask` settled: approved (run it), parked (the caller is told the approval id), or refused by the operator. */
export type ApprovalOutcome =
  | { kind: "approved"; approval: ApprovalRequest; waitMs: number | null; expect?: Record<string, string | null>; taskExpect?: TaskExpect }
  | { kind: "parked"; parked: ApprovalRequest; waited: boolean }
  | { kind: "refused"; result: ToolResult; approvalId: string };

/**
 * A dispatch plan's tasks' bound files as execution must find them, by the task's index in the plan: only for tasks
 * whose files no other task of the plan may change (another task's edit or script is the plan's own, approved work).
 */
export type TaskExpect = ReadonlyMap<number, Record<string, string | null>>;

/** An ask's text as bound, and what execution must find of the files it binds. */
interface BoundText {
  text: string;
  sha256: string;
  expect?: Record<string, string | null>;
  taskExpect?: TaskExpect;
}

/** The topologies whose tasks run in the session's workspace (a compete or review plan binds its tree instead). */
const WORKSPACE_TOPOLOGIES = new Set(["parallel", "sequential", "pipeline"]);

/**
 * The approval stop of a call admission asked about: bind the files it runs or changes as they are now,
 * use an approval already given for exactly that text, or park it and wait as long as the caller will.
 */
export class ApprovalWait {
  constructor(
    private readonly deps: {
      approvals: ApprovalService;
      driver: Pick<SandboxDriver, "request">;
    },
  ) {}

  async settle(
    admission: AdmissionResult,
    call: {
      sessionId: string;
      tool: ResolvedTool | undefined;
      /** The tools a plan's tasks name, as the call resolves them (their bound files go in the plan's text). */
      resolve?: (tool: string) => ResolvedTool | undefined;
      requestedBy: string;
      waitMs: number;
      signal?: AbortSignal;
    },
  ): Promise<ApprovalOutcome> {
    // The approval binds the files the call runs or changes as they are now; execution checks them again.
    const files = admission.tasks && call.resolve ? await this.bindPlanFiles(call.sessionId, admission, call.resolve) : await this.bindFiles(call.sessionId, call.tool, admission);
    const bound = await this.bindTree(call.sessionId, call.tool, admission.args, files);
    const expects = { ...(bound.expect ? { expect: bound.expect } : {}), ...(bound.taskExpect ? { taskExpect: bound.taskExpect } : {}) };
    const given = await this.deps.approvals.consumeApproved(call.sessionId, bound.sha256);
    if (given) return { kind: "approved", approval: given, waitMs: null, ...expects };
    // A function tool's script as the text binds it: what an operator may trust from the approval.
    const scriptPath = call.tool?.spec.trustedScript?.(admission.args as never);
    const scriptSha256 = scriptPath === undefined ? null : bound.expect?.[scriptPath];
    const parked = await this.deps.approvals.park({
      sessionId: call.sessionId,
      tool: admission.tool,
      actionClass: admission.actionClass,
      text: bound.text,
      sha256: bound.sha256,
      requestedBy: call.requestedBy,
      ...(scriptPath && scriptSha256 ? { script: { path: scriptPath, sha256: scriptSha256 } } : {}),
    });
    if (call.waitMs <= 0) return { kind: "parked", parked, waited: false };
    const waitStarted = Date.now();
    const outcome = await this.deps.approvals.waitForDecision(parked.id, call.waitMs, call.signal);
    const waitMs = Date.now() - waitStarted;
    if (outcome.status === "approved") {
      const consumed = await this.deps.approvals.consume(parked.id, parked.sha256);
      if (consumed.ok) return { kind: "approved", approval: consumed.request, waitMs, ...expects };
    }
    if (outcome.status === "timeout" || outcome.status === "aborted") return { kind: "parked", parked, waited: true };
    const code = outcome.status === "cancelled" ? "cancelled" : "denied";
    const result = toolFailure(code, `Approval ${parked.id} was ${"request" in outcome ? outcome.request.status : outcome.status}: the call did not run`, { approvalId: parked.id });
    return { kind: "refused", result, approvalId: parked.id };
  }

  /**
   * A compete or review plan's text with the workspace tree's identity appended (HEAD and a hash of the dirty
   * paths, or of every file): approving binds what the candidates start from, and the same plan on a changed
   * tree is another text to approve. A tree that cannot be read is said so, as for files.
   */
  private async bindTree<T extends { text: string; sha256: string }>(sessionId: string, tool: ResolvedTool | undefined, args: unknown, bound: T): Promise<T> {
    if (!tool?.spec.bindsTree?.(args) || !sessionId) return bound;
    let line: string;
    try {
      line = `tree ${(await this.deps.driver.request(sessionId, TreeMethod.Identity, {}, TreeIdentitySchema)).text}`;
    } catch (error) {
      line = `tree not bound: ${redactSecrets((error as Error).message)}`;
    }
    const text = `${bound.text}\n${line}`;
    return { ...bound, text, sha256: sha256Hex(text) };
  }

  /**
   * An ask's text and hash with the files it binds (its spec's boundFiles) hashed by the agent now, and the
   * hashes execution must find. A call that binds no file keeps admission's text.
   */
  private async bindFiles(sessionId: string, tool: ResolvedTool | undefined, admission: AdmissionResult): Promise<BoundText> {
    const files = tool?.spec.boundFiles?.(admission.args);
    if (!files || files.paths.length === 0 || !sessionId) return { text: admission.text, sha256: admission.sha256 };
    const hashed = await this.hashFiles(sessionId, files.paths, files.preview);
    if ("notBound" in hashed) return this.notBound(admission, hashed.notBound);
    return { ...bindCallText(admission, hashed), expect: expectedHashes(hashed) };
  }

  /**
   * A dispatch plan's text with the files its tasks bind (each task's spec's boundFiles, no previews) hashed now, so
   * approving the plan approves those bytes: the same plan over a changed script is another text to approve. Each
   * task whose files no other task may change (its action class reads only) must find them so when it runs.
   */
  private async bindPlanFiles(sessionId: string, plan: AdmissionResult, resolve: (tool: string) => ResolvedTool | undefined): Promise<BoundText> {
    const topology = (plan.args as { topology?: unknown } | null)?.topology ?? "parallel";
    const tasks = plan.tasks ?? [];
    const paths = tasks.map((task) => resolve(task.tool)?.spec.boundFiles?.(task.args as never)?.paths ?? []);
    const all = [...new Set(paths.flat())];
    if (!WORKSPACE_TOPOLOGIES.has(String(topology)) || all.length === 0 || !sessionId) return { text: plan.text, sha256: plan.sha256 };
    const hashed = await this.hashFiles(sessionId, all);
    if ("notBound" in hashed) return this.notBound(plan, hashed.notBound);
    const expect = expectedHashes(hashed);
    const taskExpect = new Map<number, Record<string, string | null>>();
    tasks.forEach((task, i) => {
      const others = tasks.filter((_, j) => j !== i);
      if (paths[i]!.length === 0 || others.some((other) => other.actionClass !== "read")) return;
      taskExpect.set(i, Object.fromEntries(paths[i]!.filter((p) => p in expect).map((p) => [p, expect[p]!])));
    });
    return { ...bindCallText(plan, hashed), ...(taskExpect.size > 0 ? { taskExpect } : {}) };
  }

  /** The agent's hashes of `paths` now, or why they cannot be had. */
  private async hashFiles(sessionId: string, paths: string[], preview?: string): Promise<FilesHashResult | { notBound: string }> {
    try {
      return await this.deps.driver.request(sessionId, AgentMethod.FilesHash, { paths, ...(preview ? { preview } : {}) }, FilesHashResultSchema);
    } catch (error) {
      return { notBound: redactSecrets((error as Error).message) };
    }
  }

  /**
   * A path the agent will not hash (outside the workspace: /tmp) or a sandbox that is not up: the operator is told the
   * files are not bound, and the call itself fails or runs as it would have.
   */
  private notBound(admission: AdmissionResult, why: string): BoundText {
    const text = `${admission.text}\nfiles not bound: ${why}`;
    return { text, sha256: sha256Hex(text) };
  }
}
