import type { TestRunner } from "./runner-test-kit";

/** Stores a skill through the API as an admin (it is hashed there, as at any install); throws unless it was created. */
export async function installSkill(
  kit: TestRunner,
  skill: { name: string; description: string; body: string; allowedTools?: string[]; activation?: "model" | "manual" },
): Promise<void> {
  const { status, body } = await kit.api("POST", "/api/skills", skill);
  if (status !== 201) throw new Error(`install skill ${skill.name}: ${status} ${JSON.stringify(body)}`);
}
