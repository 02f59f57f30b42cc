import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Repositories } from "./create-repositories";
import { openTestRepositories } from "./testing/open-test-repositories";

let repos: Repositories;
let close: () => Promise<void>;

beforeAll(async () => {
  ({ repos, close } = await openTestRepositories());
}, 60_000);
afterAll(() => close());

describe("PolicyRuleRepository", () => {
  it("lists rules oldest first with their examples parsed, and as the protocol's PolicyRule for admission", async () => {
    await repos.policyRules.create({ id: "rule_1", tool: "bash", commandPrefix: "git push", effect: "ask", appliesTo: "agents", mustMatch: ["git push origin"], mustNotMatch: ["git status"] }, "op");
    await new Promise((resolve) => setTimeout(resolve, 5));
    await repos.policyRules.create({ id: "rule_2", tool: "*", effect: "deny", mustMatch: [], mustNotMatch: [] }, "op");
    const views = await repos.policyRules.list();
    expect(views.map((v) => v.id)).toEqual(["rule_1", "rule_2"]);
    expect(views[0]).toMatchObject({ commandPrefix: "git push", mustMatch: ["git push origin"], mustNotMatch: ["git status"], createdBy: "op" });
    expect(views[1]).toMatchObject({ commandPrefix: null, appliesTo: "everyone" });
    const rules = await repos.policyRules.listRules();
    expect(rules[0]).toEqual({ id: "rule_1", tool: "bash", commandPrefix: "git push", effect: "ask", appliesTo: "agents", mustMatch: ["git push origin"], mustNotMatch: ["git status"] });
    expect(rules[1]).not.toHaveProperty("commandPrefix");
  });

  it("deletes a rule once", async () => {
    expect(await repos.policyRules.delete("rule_2")).toBe(true);
    expect(await repos.policyRules.delete("rule_2")).toBe(false);
  });
});
