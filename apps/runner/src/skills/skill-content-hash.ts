import crypto from "node:crypto";

/** Everything an agent reads of a skill, hashed at install; a stored skill that no longer matches it has drifted. */
export function skillContentHash(skill: {
  name: string;
  description: string;
  body: string;
  allowedTools: readonly string[];
}): string {
  return crypto
    .createHash("sha256")
    .update(JSON.stringify([skill.name, skill.description, skill.body, skill.allowedTools]))
    .digest("hex");
}
