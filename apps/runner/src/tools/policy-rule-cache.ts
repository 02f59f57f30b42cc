import type { Repositories } from "@berth/db";
import type { PolicyRule } from "@berth/protocol";

/** The operators' policy rules, read once and kept until a policy route changes them (they change rarely). */
export class PolicyRuleCache {
  private rules: PolicyRule[] | null = null;

  constructor(private readonly repos: Pick<Repositories, "policyRules">) {}

  /** The rules when they are in memory (a tool call's usual case), else null: ask `get`. */
  now(): PolicyRule[] | null {
    return this.rules;
  }

  async get(): Promise<PolicyRule[]> {
    this.rules ??= await this.repos.policyRules.listRules();
    return this.rules;
  }

  invalidate(): void {
    this.rules = null;
  }
}
