import type { ContextSkill, WorkspaceSummary } from "@berth/protocol";
import type { ObservationBudgetView } from "../budget/observation-turn";
import type { FunctionToolsReport } from "../function-tools/parse-function-tools-file";

/** A policy rule as `context settings` shows it. */
export interface ContextPolicyRule {
  id: string;
  tool: string;
  effect: string;
  commandPrefix?: string;
  appliesTo: string;
  mustMatch: string[];
  mustNotMatch: string[];
}

/** The session's settings (limits as name → value, each value with its unit in the name). */
export interface ContextSettings {
  sessionId: string;
  autonomy: string;
  network: string;
  limits: Record<string, number | string>;
  policyRules: ContextPolicyRule[];
  /** A request-level allowlist or an active skill narrowing this caller's tools (null: the whole surface). */
  allowedTools: string[] | null;
}

/** A refusal the tool reports as it is (it names the thing refused). */
export interface Refused {
  refused: string;
  code?: string;
}

export function isRefused(value: unknown): value is Refused {
  return typeof value === "object" && value !== null && typeof (value as Refused).refused === "string";
}

/** A piece of a stored body, read by byte offset. */
export interface RecallPage {
  ref: string;
  /** Where it came from: a stored overflow copy of a cut result, or a run's log. */
  source: string;
  offset: number;
  totalBytes: number;
  content: string;
  /** Bytes of `content` (a cut never splits a character, so it may be a little under what was asked). */
  bytes: number;
}

/**
 * What `context` reads from the runner, always scoped to the calling session and principal. The runner
 * implements it; a unit test may give a fake.
 */
export interface ContextHost {
  workspaceSummary(): Promise<WorkspaceSummary>;
  /** The session's berth.tools.json as scanned now: its tools, or why none loaded (undefined: the workspace has none). */
  functionTools?(): Promise<FunctionToolsReport | undefined>;
  settings(): Promise<ContextSettings>;
  skills(): Promise<ContextSkill[]>;
  /** The skill's stored body, refused for a drifted one (its body is not what was installed). */
  loadSkill(name: string): Promise<{ skill: ContextSkill; body: string } | Refused>;
  /** Activates (only `activation: "model"` skills: an agent calls this) or deactivates a skill in this session. */
  setSkillActive(name: string, active: boolean): Promise<ContextSkill | Refused>;
  /** Reads `maxBytes` of a stored body from `offset`; another session's ref is refused by name. */
  recall(ref: string, offset: number, maxBytes: number): Promise<RecallPage | Refused>;
  budget(): ObservationBudgetView;
  /** The workspace root paths in a skill are relative to. */
  workspaceRoot: string;
}
