import type { PolicyRule } from "@berth/protocol";
import { describe, expect, it } from "vitest";
import { useTestRepositories } from "./testing/open-test-repositories";

const t = useTestRepositories();

const RULE_1: PolicyRule = {
  id: "rule_1",
  tool: "bash",
  commandPrefix: "git push",
  effect: "ask",
  appliesTo: "agents",
  mustMatch: ["git push origin"],
  mustNotMatch: ["git status"],
};

describe("PolicyRuleRepository", () => {
  it("lists rules oldest first with their examples parsed, and as the protocol's PolicyRule for admission", async () => {
    await t.repos.policyRules.create(RULE_1, "op");
    await new Promise((resolve) => setTimeout(resolve, 5));
    await t.repos.policyRules.create(
      { id: "rule_2", tool: "*", effect: "deny", mustMatch: [], mustNotMatch: [] },
      "op",
    );
    const views = await t.repos.policyRules.list();
    expect(views.map((v) => v.id)).toEqual(["rule_1", "rule_2"]);
    expect(views[0]).toMatchObject({
      commandPrefix: "git push",
      mustMatch: ["git push origin"],
      mustNotMatch: ["git status"],
      createdBy: "op",
    });
    expect(views[1]).toMatchObject({ commandPrefix: null, appliesTo: "everyone" });
    const rules = await t.repos.policyRules.listRules();
    expect(rules[0]).toEqual(RULE_1);
    expect(rules[1]).not.toHaveProperty("commandPrefix");
  });

  it("deletes a rule once", async () => {
    expect(await t.repos.policyRules.delete("rule_2")).toBe(true);
    expect(await t.repos.policyRules.delete("rule_2")).toBe(false);
  });
});
