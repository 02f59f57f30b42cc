import { z } from "zod";

/**
 * Admission wire types (docs/tools.md "Admission"): action classes, autonomy levels, decisions,
 * operators' policy rules and parked approval requests. The logic lives in @berth/tools.
 */

export const ACTION_CLASSES = [
  "read",
  "write",
  "execute",
  "dispatch",
  "system_modify",
  "git_destructive",
  "network",
  "unknown",
] as const;
export const ActionClassSchema = z.enum(ACTION_CLASSES);
export type ActionClass = z.infer<typeof ActionClassSchema>;

export const AUTONOMY_LEVELS = ["read-only", "default", "trusted", "yolo"] as const;
export const AutonomySchema = z.enum(AUTONOMY_LEVELS);
export type Autonomy = z.infer<typeof AutonomySchema>;

export const DecisionSchema = z.enum(["allow", "ask", "deny"]);
export type Decision = z.infer<typeof DecisionSchema>;

/**
 * Who made a call: `browser` is a person signed in to the web app (only a browser-session cookie counts),
 * `api` a script holding an API token (REST or socket.io), `agent` an MCP client. The loop guard applies
 * to agents; autonomy does not ask a person acting in their own session.
 */
export const CallerKindSchema = z.enum(["agent", "browser", "api"]);
export type CallerKind = z.infer<typeof CallerKindSchema>;

/** The admission step that settled a verdict, in the spec's order. */
export const AdmissionStageSchema = z.enum(["tool", "arguments", "allowlist", "policy", "autonomy", "loop_guard"]);
export type AdmissionStage = z.infer<typeof AdmissionStageSchema>;

// Kept local: receipt.ts exports its own Sha256HexSchema and the barrel must not see two.
const Sha256Hex = z.string().regex(/^[0-9a-f]{64}$/, "must be 64 lowercase hex characters");
const IsoTime = z.iso.datetime({ offset: true });

/**
 * pending → approved | denied | expired | cancelled (by whoever asked); approved → consumed (an approval is
 * single-use).
 */
export const ApprovalStatusSchema = z.enum(["pending", "approved", "denied", "expired", "consumed", "cancelled"]);
export type ApprovalStatus = z.infer<typeof ApprovalStatusSchema>;

export const ApprovalRequestSchema = z.object({
  id: z.string().min(1),
  sessionId: z.string().min(1),
  tool: z.string().min(1),
  actionClass: ActionClassSchema,
  /** Deterministic rendering of the call (for a plan, the plan text); what the operator reads. */
  text: z.string(),
  /** sha256 of `text`; the operator sends it back with the decision. */
  sha256: Sha256Hex,
  status: ApprovalStatusSchema,
  requestedBy: z.string().min(1),
  createdAt: IsoTime,
  expiresAt: IsoTime,
  decidedBy: z.string().optional(),
  decidedAt: IsoTime.optional(),
  /** The operator's note with the decision. */
  note: z.string().optional(),
  /** Why the request ended without an operator (e.g. expiry). */
  cause: z.string().optional(),
  consumedAt: IsoTime.optional(),
  /**
   * A function tool's call: the workspace script it runs and that script's sha256 as the approval binds it, which
   * an operator's allow rule may name to trust the script (POST /api/policy-rules {tool, scriptSha256}).
   */
  script: z.object({ path: z.string().min(1), sha256: Sha256Hex }).optional(),
});
export type ApprovalRequest = z.infer<typeof ApprovalRequestSchema>;

export function isApprovalRequest(value: unknown): value is ApprovalRequest {
  return ApprovalRequestSchema.safeParse(value).success;
}

export const ApprovalDecisionSchema = z.enum(["approve", "deny"]);
export type ApprovalDecision = z.infer<typeof ApprovalDecisionSchema>;

/**
 * REST body of `POST /api/approvals/:id`; the decider comes from auth, never from the body. `cancel` is
 * the requester withdrawing their own parked call (operators approve or deny).
 */
export const ApprovalDecisionBodySchema = z.object({
  decision: z.enum(["approve", "deny", "cancel"]),
  sha256: Sha256Hex,
  note: z.string().max(2000, "must be at most 2000 characters").optional(),
});
export type ApprovalDecisionBody = z.infer<typeof ApprovalDecisionBodySchema>;

/** Socket events the runner forwards to operators' dashboards. */
export const ApprovalEvent = {
  Created: "approval:created",
  Decided: "approval:decided",
} as const;
export type ApprovalEventName = (typeof ApprovalEvent)[keyof typeof ApprovalEvent];

/** Whom a policy rule governs: agents and scripts (MCP and API-token callers), people in the browser, or both. */
export const POLICY_TARGETS = ["agents", "people", "everyone"] as const;
export const PolicyTargetSchema = z.enum(POLICY_TARGETS);
export type PolicyTarget = z.infer<typeof PolicyTargetSchema>;

/**
 * An operator's rule. `tool` is a tool name or "*"; `commandPrefix` (shell tools only) matches the
 * parsed words of every simple command at token boundaries. `mustMatch` / `mustNotMatch` are example
 * commands checked when the rule is saved. A shell rule without a prefix matches every command, so it is
 * saved only with `matchAll: true` (the operator said so; never by leaving the prefix empty).
 */
export const PolicyRuleSchema = z.object({
  id: z.string().min(1, "must not be empty"),
  tool: z.string().min(1, "must not be empty"),
  commandPrefix: z.string().min(1, "must not be empty").optional(),
  matchAll: z.boolean().optional(),
  /** Absent: everyone. */
  appliesTo: PolicyTargetSchema.optional(),
  effect: DecisionSchema,
  /**
   * An allow rule for a function tool (berth.tools.json): the sha256 of the script it trusts. A function tool's
   * script is the workspace's to change, so an allow rule names the bytes, not only the name.
   */
  scriptSha256: z.string().regex(/^[0-9a-f]{64}$/, "must be a sha256 in lowercase hex (64 characters)").optional(),
  mustMatch: z.array(z.string()).default([]),
  mustNotMatch: z.array(z.string()).default([]),
  description: z.string().optional(),
});
export type PolicyRule = z.infer<typeof PolicyRuleSchema>;
export type PolicyRuleInput = z.input<typeof PolicyRuleSchema>;

export function isPolicyRule(value: unknown): value is PolicyRule {
  return PolicyRuleSchema.safeParse(value).success;
}

/** compete: candidates each in a tree of their own, checked, the first that passes every check applied; review: one builder, its checks gate it. */
export const DispatchTopologySchema = z.enum(["parallel", "sequential", "pipeline", "compete", "review"]);
export type DispatchTopology = z.infer<typeof DispatchTopologySchema>;

export const DispatchTaskSchema = z.object({
  tool: z.string().min(1, "must not be empty"),
  args: z.unknown(),
  id: z.string().optional(),
  after: z.union([z.string(), z.array(z.string())]).optional(),
});
export type DispatchTask = z.infer<typeof DispatchTaskSchema>;

export const DispatchPlanSchema = z.object({
  tasks: z.array(DispatchTaskSchema).min(1, "must have at least one task"),
  topology: DispatchTopologySchema,
  /** compete and review: the checks run in each candidate's tree after its task (admitted as tasks of the plan). */
  checks: z.array(DispatchTaskSchema).optional(),
  /** compete and review: whether the winner is applied to the workspace as part of the plan. */
  apply: z.boolean().optional(),
});
export type DispatchPlan = z.infer<typeof DispatchPlanSchema>;

/** A dispatch that is not a plan: an operation on a finished compete or review (its run id). */
export const DispatchOpSchema = z.object({
  op: z.enum(["apply-winner", "clear"]),
  runId: z.string().min(1, "must not be empty").max(100),
});
export type DispatchOp = z.infer<typeof DispatchOpSchema>;
