import type { ActionClass, Decision } from "@berth/protocol";

/**
 * Severity levels, least to most severe. "execute" splits in two because the autonomy table treats
 * recognised commands (tests, builds, ls…) differently from other programs.
 */
export const SEVERITY_ORDER = [
  "read",
  "write",
  "execute-recognised",
  "execute-other",
  "unknown",
  "network",
  "dispatch",
  "system_modify",
  "git_destructive",
] as const;
export type SeverityLevel = (typeof SEVERITY_ORDER)[number];

const RANK: Record<SeverityLevel, number> = Object.fromEntries(SEVERITY_ORDER.map((level, i) => [level, i])) as Record<
  SeverityLevel,
  number
>;

export function severityLevel(actionClass: ActionClass, recognised: boolean): SeverityLevel {
  if (actionClass === "execute") return recognised ? "execute-recognised" : "execute-other";
  return actionClass;
}

export function severityRank(level: SeverityLevel): number {
  return RANK[level];
}

export function levelToClass(level: SeverityLevel): ActionClass {
  return level === "execute-recognised" || level === "execute-other" ? "execute" : level;
}

/** The most severe of two classifications; ties keep the first. */
export function mostSevere<T extends { actionClass: ActionClass; recognised: boolean }>(a: T, b: T): T {
  return RANK[severityLevel(b.actionClass, b.recognised)] > RANK[severityLevel(a.actionClass, a.recognised)] ? b : a;
}

const DECISION_RANK: Record<Decision, number> = { allow: 0, ask: 1, deny: 2 };

/** deny wins over ask over allow. */
export function strictestDecision(...decisions: Decision[]): Decision {
  let worst: Decision = "allow";
  for (const d of decisions) if (DECISION_RANK[d] > DECISION_RANK[worst]) worst = d;
  return worst;
}
