export { AUTONOMY_TABLE, decide } from "./decide";
export type { DecideOptions } from "./decide";
export { SEVERITY_ORDER, levelToClass, mostSevere, severityLevel, strictestDecision } from "./severity";
export type { SeverityLevel } from "./severity";
export { evaluatePolicy, parseCommandPrefix, ruleApplies } from "./evaluate-policy";
export type { PolicyInput, PolicyOutcome } from "./evaluate-policy";
export { validatePolicyRule } from "./validate-policy-rule";
export type { PolicyRuleValidation } from "./validate-policy-rule";
export { ENV_VALUE_MASK, argsForText, bindCallText, boundFilesOf, canonicalArgsJson, expectedHashes, patchTargets, renderCallText, renderPlanText, sha256Hex, showControls } from "./render-call-text";
export type { RenderedCall } from "./render-call-text";
export { admit } from "./admit";
export type {
  AdmissionCall,
  AdmissionContext,
  AdmissionRegistry,
  AdmissionResult,
  SessionAllowlist,
  SessionGrant,
  ToolClassification,
} from "./admit";
export { LoopGuard, loopGuardKey } from "./loop-guard";
export type { LoopGuardOptions, LoopGuardOutcome, LoopGuardVerdict } from "./loop-guard";
export { systemClock } from "./clock";
export type { Clock } from "./clock";
export { InMemoryApprovalStore } from "./approval-store";
export type { ApprovalStore } from "./approval-store";
export { APPROVAL_ERROR_STATUS, ApprovalService, DEFAULT_APPROVAL_TTL_MS } from "./approval-service";
export type {
  ApprovalError,
  ApprovalListener,
  ApprovalOutcome,
  ApprovalServiceOptions,
  ConsumeErrorKind,
  DecideErrorKind,
  DecideInput,
  ParkInput,
  WaitOutcome,
} from "./approval-service";
