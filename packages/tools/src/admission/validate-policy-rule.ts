import { PolicyRuleSchema, WORKSPACE_ROOT, formatIssue } from "@berth/protocol";
import type { PolicyRule } from "@berth/protocol";
import { classifyCommand } from "../shell";
import { describeRule, parseCommandPrefix, ruleApplies } from "./evaluate-policy";

export type PolicyRuleValidation = { ok: true; rule: PolicyRule } | { ok: false; errors: string[] };

/** Examples are commands, checked against this root (only paths in them depend on it). */

/** Tools whose rules match command lines: without a prefix such a rule matches every command. */
const SHELL_TOOLS = new Set(["bash", "run_script", "*"]);

/**
 * Checks a rule when it is saved: its shape, its prefix, and its examples: every `mustMatch`
 * example must match and no `mustNotMatch` example may. Errors name the example.
 */
export function validatePolicyRule(input: unknown): PolicyRuleValidation {
  const prefix = (input as { commandPrefix?: unknown } | null)?.commandPrefix;
  if (typeof prefix === "string" && prefix.trim() === "") {
    // A blank prefix would be read as "no prefix": every command. Only matchAll says that on purpose.
    return {
      ok: false,
      errors: [`commandPrefix: must name a command (got ${JSON.stringify(prefix)}); leave it out and set matchAll: true to match every command`],
    };
  }
  const parsed = PolicyRuleSchema.safeParse(input);
  if (!parsed.success) {
    return { ok: false, errors: parsed.error.issues.map((issue) => formatIssue(issue, "rule")) };
  }
  const rule = parsed.data;
  const errors: string[] = [];
  if (rule.scriptSha256 !== undefined) {
    // It names the bytes one function tool runs: only an allow of that one tool can mean anything by it.
    if (rule.effect !== "allow") errors.push(`scriptSha256: only an allow rule names the script it trusts (got effect ${rule.effect})`);
    if (SHELL_TOOLS.has(rule.tool)) errors.push(`scriptSha256: names a function tool's script, not ${rule.tool === "*" ? "every tool" : rule.tool} (got tool ${JSON.stringify(rule.tool)})`);
    if (rule.commandPrefix !== undefined) errors.push(`scriptSha256: a function tool runs no command line, so a commandPrefix cannot go with it (got ${JSON.stringify(rule.commandPrefix)})`);
  }
  if (rule.commandPrefix !== undefined) {
    const prefix = parseCommandPrefix(rule.commandPrefix);
    if (typeof prefix === "string") errors.push(prefix);
    if (rule.matchAll) errors.push(`matchAll: must not be set with a commandPrefix (got ${JSON.stringify(rule.commandPrefix)})`);
  } else if (SHELL_TOOLS.has(rule.tool) && rule.matchAll !== true) {
    errors.push(
      `commandPrefix: required for tool ${rule.tool} (a rule without one matches every command); set matchAll: true to mean every command`,
    );
  }
  // A "*" rule's examples are read as bash commands.
  const tool = rule.tool === "*" ? "bash" : rule.tool;
  const matches = (example: string) =>
    ruleApplies(rule, { tool, commands: classifyCommand(example, { workspaceRoot: WORKSPACE_ROOT }).commands });
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
