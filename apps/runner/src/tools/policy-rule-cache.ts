import type { Repositories } from "@berth/db";
import type { PolicyRule } from "@berth/protocol";

/** The operators' policy rules as loaded, with what calls need of them derived once. */
export interface LoadedPolicy {
  rules: PolicyRule[];
  /** The tools some rule trusts by a script's bytes: only their scripts are hashed before admission. */
  scriptTools: ReadonlySet<string>;
}

/** The operators' policy rules, read once and kept until a policy route changes them (they change rarely). */
export class PolicyRuleCache {
  private loaded: LoadedPolicy | null = null;

  constructor(private readonly repos: Pick<Repositories, "policyRules">) {}

  /** The rules when they are in memory (a tool call's usual case), else null: ask `load`. */
  now(): LoadedPolicy | null {
    return this.loaded;
  }

  async load(): Promise<LoadedPolicy> {
    if (this.loaded) return this.loaded;
    const rules = await this.repos.policyRules.listRules();
    this.loaded = {
      rules,
      scriptTools: new Set(rules.filter((rule) => rule.scriptSha256 !== undefined).map((rule) => rule.tool)),
    };
    return this.loaded;
  }

  async get(): Promise<PolicyRule[]> {
    return (await this.load()).rules;
  }

  invalidate(): void {
    this.loaded = null;
  }
}
