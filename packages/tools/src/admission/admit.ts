import { DispatchOpSchema, DispatchPlanSchema } from "@berth/protocol";
import type { ActionClass, AdmissionStage, Autonomy, CallerKind, Decision, PolicyRule } from "@berth/protocol";
import { builtinSpecOf } from "../builtin/builtin-tools";
import type { ClassifyContext } from "../registry/tool-spec";
import type { SimpleCommand } from "../shell";
import { decide } from "./decide";
import { evaluatePolicy } from "./evaluate-policy";
import type { PolicyOutcome } from "./evaluate-policy";
import { loopGuardKey } from "./loop-guard";
import type { LoopGuard } from "./loop-guard";
import { renderCallText, type RenderedCall } from "./render-call-text";
import { strictestDecision } from "./severity";

/** A tool's class as the registry knows it; a bare class means not recognised for execute. */
export interface ToolClassification {
  actionClass: ActionClass;
  recognised?: boolean;
  alwaysAsk?: boolean;
  reasons?: string[];
  /** Parsed command words, for a tool that runs a command line: policy prefixes match these. */
  commands?: readonly SimpleCommand[];
  /** The call runs a workspace script (a function tool): an allow rule must name its sha256 (evaluate-policy.ts). */
  bindsScript?: boolean;
}

/** What admission needs from the tool registry; the runner passes the real one. */
export interface AdmissionRegistry {
  has(tool: string): boolean;
  /** Validates and normalises arguments (weak-model tolerance happens here). */
  validate(tool: string, args: unknown): { ok: true; args: unknown } | { ok: false; message: string };
  /**
   * Class of a tool that is not built in (MCP, function tools); a built-in classifies its own call (its
   * spec's classify). A ToolSpec's `classify` fits here.
   */
  actionClassOf(tool: string, args: unknown): ActionClass | ToolClassification;
}

export interface AdmissionCall {
  sessionId: string;
  tool: string;
  args: unknown;
  /** The loop guard applies to agent callers only. */
  caller: CallerKind;
  /**
   * The caller owns the session. A `browser` caller who does acts as themselves: autonomy does not ask
   * them (read-only still denies); policy rules still apply (decide.ts `person`).
   */
  ownSession?: boolean;
  /** The sha256 of the workspace script the call runs, as the runner hashed it for this call (function tools). */
  scriptSha256?: string;
  /** A dispatch plan's: each function tool's script its tasks run, by tool name, as the runner hashed it for this call. */
  taskScripts?: Readonly<Record<string, { readonly sha256: string }>>;
}

/** A grant remembered for this session ("allow `npm run dev` here"): acts like an allow rule. */
export interface SessionGrant {
  tool: string;
  commandPrefix?: string;
}

export interface SessionAllowlist {
  /** Tools this session may call at all; undefined means every known tool. */
  tools?: readonly string[];
  grants?: readonly SessionGrant[];
}

export interface AdmissionContext {
  registry: AdmissionRegistry;
  autonomy: Autonomy;
  /** Absolute workspace root inside the container, e.g. `/workspace`. */
  workspaceRoot: string;
  writableRoots?: readonly string[];
  policyRules?: readonly PolicyRule[];
  session?: SessionAllowlist;
  /** Shared per runner; omit to skip the loop guard (e.g. in a dry run). */
  loopGuard?: LoopGuard;
  /**
   * The session's workspace generation (bumped by every write, patch, edit and finished command): a
   * repeat after a change is not a repeat. The runner keeps it; omitted, the guard counts arguments only.
   */
  workspaceGeneration?: number;
  /** The class a running process's `bash start` was admitted under; `bash write` to it inherits it. */
  processClass?: (processId: string) => ToolClassification | undefined;
}

export interface AdmissionResult {
  verdict: Decision;
  /** The step that settled the verdict. */
  stage: AdmissionStage;
  /** The tool admitted. `gateway` op=call is admitted again under the capability's name by GatewayHost.call. */
  tool: string;
  /** Validated arguments (raw ones when validation failed). */
  args: unknown;
  actionClass: ActionClass;
  recognised: boolean;
  alwaysAsk: boolean;
  /** One line saying why, for the caller. */
  reason: string;
  /** Everything the classifier noticed. */
  reasons: string[];
  /** Deterministic rendering of the call and its sha256: what an approval binds to (rendered when first read). */
  readonly text: string;
  readonly sha256: string;
  ruleId?: string;
  /** A dispatch plan's tasks, each admitted on its own. */
  tasks?: AdmissionResult[];
}

interface Classified extends Required<Omit<ToolClassification, "commands">> {
  commands?: readonly SimpleCommand[] | undefined;
}

const MAX_NESTING = 4;

/**
 * Admission for one call, in the spec's order: tool known → arguments valid → action class →
 * session allowlist → policy rules → autonomy → loop guard. Pure: parking an `ask` is the caller's
 * job (ApprovalService).
 */
export function admit(call: AdmissionCall, ctx: AdmissionContext): AdmissionResult {
  const result = evaluate(call, ctx, 0);
  if (call.caller !== "agent" || ctx.loopGuard === undefined || result.verdict === "deny") return result;
  const guard = ctx.loopGuard.checkKey(
    loopGuardKey(call.sessionId, result.sha256),
    result.tool,
    ctx.workspaceGeneration,
  );
  if (!guard.blocked) return result;
  return { ...result, verdict: "deny", stage: "loop_guard", reason: guard.message };
}

/** A call refused before it could be classified (an unknown tool, invalid arguments). */
function refused(tool: string, stage: AdmissionStage, reason: string, args: unknown): AdmissionResult {
  return { tool, args, ...renderCallText(tool, args), reasons: [], verdict: "deny", stage, actionClass: "unknown", recognised: false, alwaysAsk: false, reason };
}

function evaluate(call: AdmissionCall, ctx: AdmissionContext, depth: number): AdmissionResult {
  const { tool } = call;
  if (!ctx.registry.has(tool)) return refused(tool, "tool", `Unknown tool: ${tool}`, call.args);
  const validated = ctx.registry.validate(tool, call.args);
  if (!validated.ok) return refused(tool, "arguments", validated.message, call.args);
  const args = validated.args;

  // An op on a finished compete (apply-winner, clear) is no plan: its spec classifies it like any call.
  if (builtinSpecOf(tool)?.plansCalls && !DispatchOpSchema.safeParse(args).success) return evaluatePlan(call, args, ctx, depth);

  const classified = classifyCall(tool, args, ctx);
  const settled = settle(tool, classified, ctx, classified.commands, call);
  // The call's text and hash are rendered when first read: an allowed call from a script needs them only for its
  // row, written after the reply. Validated arguments are not changed after admission, so the text is the same.
  let rendered: RenderedCall | undefined;
  const render = () => (rendered ??= renderCallText(tool, args));
  return {
    verdict: settled.verdict,
    stage: settled.stage,
    tool,
    args,
    actionClass: classified.actionClass,
    recognised: classified.recognised,
    alwaysAsk: classified.alwaysAsk,
    reason: settled.reason,
    reasons: classified.reasons,
    get text() {
      return render().text;
    },
    get sha256() {
      return render().sha256;
    },
    ...(settled.ruleId === undefined ? {} : { ruleId: settled.ruleId }),
  };
}

/** Session allowlist → policy rules → autonomy, for a classified call. */
function settle(
  tool: string,
  c: Classified,
  ctx: AdmissionContext,
  commands: readonly SimpleCommand[] | undefined,
  call: Pick<AdmissionCall, "caller" | "ownSession" | "scriptSha256">,
): { verdict: Decision; stage: AdmissionStage; reason: string; ruleId?: string } {
  const person = call.caller === "browser" && call.ownSession === true;
  const allowed = ctx.session?.tools;
  if (allowed !== undefined && !allowed.includes(tool)) {
    return { verdict: "deny", stage: "allowlist", reason: `Tool ${tool} is not on this session's allowlist` };
  }
  const grants = ctx.session?.grants ?? [];
  const grant = grants.length
    ? evaluatePolicy(
        grants.map((g, i) => ({
          id: `session-grant-${i + 1}`,
          ...g,
          effect: "allow" as const,
          mustMatch: [],
          mustNotMatch: [],
        })),
        { tool, commands, bindsScript: c.bindsScript },
      )
    : ({ effect: undefined } satisfies PolicyOutcome);
  const policy = ctx.policyRules?.length
    ? evaluatePolicy(ctx.policyRules, { tool, commands, caller: call.caller, bindsScript: c.bindsScript, scriptSha256: call.scriptSha256 })
    : ({ effect: undefined } satisfies PolicyOutcome);
  const raw = decide(c.actionClass, c.recognised, ctx.autonomy, { person });
  const what = describeClass(c);
  const why = c.reasons.length ? `: ${c.reasons.slice(-1)[0]}` : "";
  const rule = policy.ruleId === undefined ? {} : { ruleId: policy.ruleId };

  if (policy.effect === "deny") return { verdict: "deny", stage: "policy", reason: policy.reason!, ...rule };
  if (raw === "deny")
    return { verdict: "deny", stage: "autonomy", reason: `${what} is denied at autonomy ${ctx.autonomy}${why}` };
  // Unseen code (`$CMD …`, `eval "$X"`, `curl … | sh`) asks an agent; a person typed it themselves.
  if (c.alwaysAsk && !person) {
    const unseen = c.reasons.find((r) => r.includes("always asks")) ?? "runs code that cannot be seen first";
    return { verdict: "ask", stage: "autonomy", reason: `asks at every autonomy level: ${unseen}` };
  }
  if (policy.effect === "ask") return { verdict: "ask", stage: "policy", reason: policy.reason!, ...rule };
  if (policy.effect === "allow") return { verdict: "allow", stage: "policy", reason: policy.reason!, ...rule };
  if (grant.effect === "allow")
    return { verdict: "allow", stage: "allowlist", reason: `allowed for this session (${grant.ruleId})` };
  if (person && raw === "allow" && (c.alwaysAsk || decide(c.actionClass, c.recognised, ctx.autonomy) !== "allow"))
    return { verdict: "allow", stage: "autonomy", reason: `${what} by the session's owner, who acts as themselves at autonomy ${ctx.autonomy}` };
  return {
    verdict: raw,
    stage: "autonomy",
    reason: `${what} is ${raw === "ask" ? "asked about" : "allowed"} at autonomy ${ctx.autonomy}${why}`,
  };
}

const describeClass = (c: { actionClass: ActionClass; recognised: boolean }): string =>
  c.actionClass === "execute" ? `execute (${c.recognised ? "recognised" : "other"})` : c.actionClass;

/**
 * A built-in classifies its own call (its spec's classify: bash and run_script parse their command line,
 * bash write inherits its process's class); any other tool takes the class the registry gives it.
 */
function classifyCall(tool: string, args: unknown, ctx: AdmissionContext): Classified {
  const spec = builtinSpecOf(tool);
  const classifyContext: ClassifyContext = {
    workspaceRoot: ctx.workspaceRoot,
    ...(ctx.writableRoots ? { writableRoots: ctx.writableRoots } : {}),
    ...(ctx.processClass ? { processClass: ctx.processClass } : {}),
  };
  const known = spec ? spec.classify(args, classifyContext) : ctx.registry.actionClassOf(tool, args);
  const c = typeof known === "string" ? { actionClass: known } : known;
  return {
    actionClass: c.actionClass,
    recognised: c.recognised ?? false,
    alwaysAsk: c.alwaysAsk ?? false,
    reasons: c.reasons ?? [],
    commands: c.commands,
    bindsScript: c.bindsScript ?? false,
  };
}

/**
 * A plan is plan-scale when it has more than one task or any task would ask: then it parks once for
 * the whole rendered plan (the dispatch row of the table). A task that is denied denies the plan.
 */
function evaluatePlan(call: AdmissionCall, args: unknown, ctx: AdmissionContext, depth: number): AdmissionResult {
  const rendered = renderCallText("dispatch", args);
  const plan = DispatchPlanSchema.safeParse(args);
  const common = { tool: "dispatch", args, ...rendered };
  if (!plan.success) {
    const issue = plan.error.issues[0];
    return {
      ...common,
      verdict: "deny",
      stage: "arguments",
      actionClass: "dispatch",
      recognised: false,
      alwaysAsk: false,
      reason: `dispatch: ${issue?.path.join(".") || "args"} ${issue?.message ?? "invalid"}`,
      reasons: [],
    };
  }
  if (depth >= MAX_NESTING) {
    return {
      ...common,
      verdict: "deny",
      stage: "arguments",
      actionClass: "dispatch",
      recognised: false,
      alwaysAsk: false,
      reason: "dispatch: plans nested too deeply",
      reasons: [],
    };
  }
  // A compete's or review's checks are tasks of the plan too: each runs in every candidate's tree.
  const planned = [...plan.data.tasks, ...(plan.data.checks ?? [])];
  // Each task is judged with its own script's hash (a function tool the runner hashed for this plan), never the plan's.
  const { scriptSha256: _outer, ...caller } = call;
  const scriptOf = (tool: string) => (call.taskScripts && Object.hasOwn(call.taskScripts, tool) ? call.taskScripts[tool]?.sha256 : undefined);
  const tasks = planned.map((task) => {
    const scriptSha256 = scriptOf(task.tool);
    return evaluate({ ...caller, tool: task.tool, args: task.args, ...(scriptSha256 ? { scriptSha256 } : {}) }, ctx, depth + 1);
  });
  const reasons = tasks.flatMap((t, i) => t.reasons.map((r) => `task ${i + 1} (${t.tool}): ${r}`));
  const alwaysAsk = tasks.some((t) => t.alwaysAsk);
  const denied = tasks.findIndex((t) => t.verdict === "deny");
  if (denied >= 0) {
    const t = tasks[denied]!;
    return {
      ...common,
      verdict: "deny",
      stage: t.stage,
      actionClass: t.actionClass,
      recognised: t.recognised,
      alwaysAsk,
      reason: `task ${denied + 1} (${t.tool}): ${t.reason}`,
      reasons,
      tasks,
    };
  }
  const planScale = tasks.length > 1 || tasks.some((t) => t.verdict === "ask");
  if (!planScale) {
    const only = tasks[0]!;
    return { ...only, ...common, tasks, reasons };
  }
  const settled = settle(
    "dispatch",
    { actionClass: "dispatch", recognised: true, alwaysAsk: false, reasons: [], bindsScript: false },
    ctx,
    undefined,
    call,
  );
  // The plan asks if the dispatch row says so or any task asks on its own (unseen code asks even in yolo).
  const verdict = strictestDecision(settled.verdict, ...tasks.map((t) => t.verdict));
  const asking = tasks.findIndex((t) => t.verdict === "ask");
  const reason =
    verdict === settled.verdict
      ? `plan of ${tasks.length} task(s): ${settled.reason}`
      : `plan of ${tasks.length} task(s): task ${asking + 1} (${tasks[asking]!.tool}) ${tasks[asking]!.reason}`;
  return {
    ...common,
    verdict,
    stage: verdict === settled.verdict ? settled.stage : tasks[asking]!.stage,
    actionClass: "dispatch",
    recognised: true,
    alwaysAsk,
    reason,
    reasons,
    tasks,
    ...(settled.ruleId === undefined ? {} : { ruleId: settled.ruleId }),
  };
}
