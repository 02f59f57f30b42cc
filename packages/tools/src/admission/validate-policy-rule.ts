import { PolicyRuleSchema } from "@berth/protocol";
import type { PolicyRule } from "@berth/protocol";
import { classifyCommand } from "./classify-command";
import { describeRule, parseCommandPrefix, ruleApplies } from "./evaluate-policy";

export type PolicyRuleValidation = { ok: true; rule: PolicyRule } | { ok: false; errors: string[] };

/** Examples are commands, checked against this root (only paths in them depend on it). */
const EXAMPLE_ROOT = "/workspace";

/**
 * Checks a rule when it is saved: its shape, its prefix, and its examples: every `mustMatch`
 * example must match and no `mustNotMatch` example may. Errors name the example.
 */
export function validatePolicyRule(input: unknown): PolicyRuleValidation {
  const parsed = PolicyRuleSchema.safeParse(input);
  if (!parsed.success) {
    return { ok: false, errors: parsed.error.issues.map((i) => `${i.path.join(".") || "rule"}: ${i.message}`) };
  }
  const rule = parsed.data;
  const errors: string[] = [];
  if (rule.commandPrefix !== undefined) {
    const prefix = parseCommandPrefix(rule.commandPrefix);
    if (typeof prefix === "string") errors.push(prefix);
  }
  // A "*" rule's examples are read as bash commands.
  const tool = rule.tool === "*" ? "bash" : rule.tool;
  const matches = (example: string) =>
    ruleApplies(rule, { tool, commands: classifyCommand(example, { workspaceRoot: EXAMPLE_ROOT }).commands });
  for (const example of rule.mustMatch) {
    if (!matches(example))
      errors.push(
        `mustMatch example ${JSON.stringify(example)} does not match rule ${rule.id} (${describeRule(rule)})`,
      );
  }
  for (const example of rule.mustNotMatch) {
    if (matches(example))
      errors.push(`mustNotMatch example ${JSON.stringify(example)} matches rule ${rule.id} (${describeRule(rule)})`);
  }
  return errors.length > 0 ? { ok: false, errors } : { ok: true, rule };
}
