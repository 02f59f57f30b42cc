import crypto from "node:crypto";

/** What a skill's hash covers: everything an agent reads of it, and who may turn it on. */
export interface HashedSkill {
  name: string;
  description: string;
  body: string;
  allowedTools: readonly string[];
  /** Covered: a manual skill turned model behind the API would let an agent activate what only people may. */
  activation: "model" | "manual";
}

/** Hashed at install; a stored skill that no longer matches it has drifted. */
export function skillContentHash(skill: HashedSkill): string {
  return sha256([skill.name, skill.description, skill.body, skill.allowedTools, skill.activation]);
}

/**
 * The hash runners recorded before it covered `activation`. Only for upgrading such rows once at start
 * (SkillsService.upgradeLegacyHashes); never a second way for a skill to count as undrifted.
 */
export function legacySkillContentHash(skill: Omit<HashedSkill, "activation">): string {
  return sha256([skill.name, skill.description, skill.body, skill.allowedTools]);
}

function sha256(fields: unknown[]): string {
  return crypto.createHash("sha256").update(JSON.stringify(fields)).digest("hex");
}
