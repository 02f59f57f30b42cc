import type { PolicyRule, PolicyRuleView } from "@berth/protocol";
import { DecisionSchema, PolicyRuleSchema, PolicyTargetSchema } from "@berth/protocol";
import { z } from "zod";
import type { Database } from "../create-database";
import type { PolicyRuleModel } from "../generated/sqlite/models";
import { parseColumn, parseJsonColumn } from "./json-column";

/** mustMatchJson / mustNotMatchJson: the example commands the rule was checked against when saved. */
export const PolicyExamplesColumnSchema = z.array(z.string());

type PolicyRuleRow = PolicyRuleModel;

function toView(row: PolicyRuleRow): PolicyRuleView {
  return {
    id: row.id,
    tool: row.tool,
    commandPrefix: row.commandPrefix,
    effect: parseColumn(DecisionSchema, row.effect, "policyRule.effect"),
    appliesTo: parseColumn(PolicyTargetSchema, row.appliesTo, "policyRule.appliesTo"),
    scriptSha256: row.scriptSha256,
    mustMatch: parseJsonColumn(PolicyExamplesColumnSchema, row.mustMatchJson, "policyRule.mustMatchJson"),
    mustNotMatch: parseJsonColumn(PolicyExamplesColumnSchema, row.mustNotMatchJson, "policyRule.mustNotMatchJson"),
    createdBy: row.createdBy,
    createdAt: row.createdAt.toISOString(),
  };
}

/** Operators' policy rules: in the database, never in a workspace an agent can write. */
export class PolicyRuleRepository {
  constructor(private readonly db: Database) {}

  /** Oldest first: the order admission reads them in. */
  async list(): Promise<PolicyRuleView[]> {
    return (await this.db.policyRule.findMany({ orderBy: { createdAt: "asc" } })).map(toView);
  }

  /** The rules as admission evaluates them (PolicyRule of the protocol), oldest first. */
  async listRules(): Promise<PolicyRule[]> {
    return (await this.list()).map((view) =>
      PolicyRuleSchema.parse({
        id: view.id,
        tool: view.tool,
        ...(view.commandPrefix ? { commandPrefix: view.commandPrefix } : {}),
        effect: view.effect,
        appliesTo: view.appliesTo,
        ...(view.scriptSha256 ? { scriptSha256: view.scriptSha256 } : {}),
        mustMatch: view.mustMatch,
        mustNotMatch: view.mustNotMatch,
      }),
    );
  }

  /** A rule validatePolicyRule accepted. */
  async create(rule: PolicyRule, createdBy: string): Promise<void> {
    await this.db.policyRule.create({
      data: {
        id: rule.id,
        tool: rule.tool,
        commandPrefix: rule.commandPrefix ?? null,
        effect: rule.effect,
        appliesTo: rule.appliesTo ?? "everyone",
        scriptSha256: rule.scriptSha256 ?? null,
        mustMatchJson: JSON.stringify(rule.mustMatch),
        mustNotMatchJson: JSON.stringify(rule.mustNotMatch),
        createdBy,
      },
    });
  }

  /** False when there was no such rule. */
  async delete(id: string): Promise<boolean> {
    const { count } = await this.db.policyRule.deleteMany({ where: { id } });
    return count > 0;
  }
}
