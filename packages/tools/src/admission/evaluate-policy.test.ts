import { describe, expect, it } from "vitest";
import type { PolicyRule } from "@berth/protocol";
import { classifyCommand } from "../shell";
import { evaluatePolicy, parseCommandPrefix, ruleApplies } from "./evaluate-policy";
import { validatePolicyRule } from "./validate-policy-rule";

const rule = (r: Partial<PolicyRule> & Pick<PolicyRule, "id" | "effect">): PolicyRule => ({
  tool: "bash",
  appliesTo: "everyone",
  mustMatch: [],
  mustNotMatch: [],
  ...r,
});
const input = (command: string, tool = "bash") => ({
  tool,
  commands: classifyCommand(command, { workspaceRoot: "/workspace" }).commands,
});

describe("policy rules: matching", () => {
  const denyPush = rule({ id: "no-push", commandPrefix: "git push", effect: "deny" });

  it("matches on token boundaries", () => {
    expect(ruleApplies(denyPush, input("git push origin main"))).toBe(true);
    expect(ruleApplies(denyPush, input("git push"))).toBe(true);
    expect(ruleApplies(denyPush, input("git pushx"))).toBe(false);
    expect(ruleApplies(denyPush, input("git pull"))).toBe(false);
    expect(ruleApplies(denyPush, input("echo git push"))).toBe(false);
  });

  it("checks every simple command of a compound, and unwrapped forms", () => {
    expect(ruleApplies(denyPush, input("npm test && git push"))).toBe(true);
    expect(ruleApplies(denyPush, input("ls | xargs echo; git push"))).toBe(true);
    expect(ruleApplies(denyPush, input("sudo git push"))).toBe(true);
    expect(ruleApplies(denyPush, input("env A=1 git push"))).toBe(true);
    expect(ruleApplies(denyPush, input("bash -c 'git push'"))).toBe(true);
    expect(ruleApplies(denyPush, input("echo $(git push)"))).toBe(true);
    expect(ruleApplies(denyPush, input('"git" push'))).toBe(true);
    expect(ruleApplies(denyPush, input("/usr/bin/git push"))).toBe(true);
  });

  it("filters by tool; * matches any tool", () => {
    expect(ruleApplies(denyPush, input("git push", "run_script"))).toBe(false);
    expect(ruleApplies({ ...denyPush, tool: "*" }, input("git push", "run_script"))).toBe(true);
    expect(ruleApplies(rule({ id: "r", tool: "write_file", effect: "ask" }), { tool: "write_file" })).toBe(true);
    expect(
      ruleApplies(rule({ id: "r", tool: "write_file", effect: "ask", commandPrefix: "ls" }), { tool: "write_file" }),
    ).toBe(false);
  });

  it("deny wins over ask over allow", () => {
    const rules = [
      rule({ id: "allow-git", commandPrefix: "git", effect: "allow" }),
      rule({ id: "ask-git-push", commandPrefix: "git push", effect: "ask" }),
      rule({ id: "deny-force", commandPrefix: "git push --force", effect: "deny" }),
    ];
    expect(evaluatePolicy(rules, input("git push --force"))).toMatchObject({ effect: "deny", ruleId: "deny-force" });
    expect(evaluatePolicy(rules, input("git push"))).toMatchObject({ effect: "ask", ruleId: "ask-git-push" });
    expect(evaluatePolicy(rules, input("git status"))).toMatchObject({ effect: "allow", ruleId: "allow-git" });
    expect(evaluatePolicy(rules, input("ls")).effect).toBeUndefined();
  });

  it("an allow rule allows only when it covers every simple command", () => {
    const rules = [rule({ id: "allow-tests", commandPrefix: "npm test", effect: "allow" })];
    expect(evaluatePolicy(rules, input("npm test")).effect).toBe("allow");
    expect(evaluatePolicy(rules, input("npm test && curl https://x")).effect).toBeUndefined();
    expect(evaluatePolicy(rules, input("sudo npm test")).effect).toBeUndefined();
    expect(evaluatePolicy(rules, input("npm test $(curl https://x)")).effect).toBeUndefined();
  });

  it("parses prefixes like commands", () => {
    expect(parseCommandPrefix("git   push")).toEqual(["git", "push"]);
    expect(parseCommandPrefix("'git' push")).toEqual(["git", "push"]);
    expect(typeof parseCommandPrefix("git push && ls")).toBe("string");
    expect(typeof parseCommandPrefix("$X")).toBe("string");
  });
});

describe("policy rules: a function tool's script", () => {
  const A = "a".repeat(64);
  const B = "b".repeat(64);
  const byName = rule({ id: "by-name", tool: "count_lines", effect: "allow" });
  const byScript = rule({ id: "by-script", tool: "count_lines", effect: "allow", scriptSha256: A });

  it("an allow rule naming only the tool does not trust a tool that runs a workspace script", () => {
    expect(evaluatePolicy([byName], { tool: "count_lines", bindsScript: true, scriptSha256: A }).effect).toBeUndefined();
    // A tool that runs no workspace script is allowed by name as before.
    expect(evaluatePolicy([byName], { tool: "count_lines" }).effect).toBe("allow");
  });

  it("an allow rule naming the script's sha256 allows exactly those bytes, and nothing without a script", () => {
    expect(evaluatePolicy([byScript], { tool: "count_lines", bindsScript: true, scriptSha256: A })).toMatchObject({ effect: "allow", ruleId: "by-script" });
    expect(evaluatePolicy([byScript], { tool: "count_lines", bindsScript: true, scriptSha256: B }).effect).toBeUndefined();
    expect(evaluatePolicy([byScript], { tool: "count_lines", bindsScript: true }).effect).toBeUndefined();
    expect(evaluatePolicy([byScript], { tool: "count_lines" }).effect).toBeUndefined();
  });

  it("a deny rule by name still applies whatever the script", () => {
    const deny = rule({ id: "no", tool: "count_lines", effect: "deny" });
    expect(evaluatePolicy([byScript, deny], { tool: "count_lines", bindsScript: true, scriptSha256: A }).effect).toBe("deny");
  });

  it("is saved only as an allow of one named tool without a prefix, the sha256 in lowercase hex", () => {
    expect(validatePolicyRule({ id: "r", tool: "count_lines", effect: "allow", scriptSha256: A }).ok).toBe(true);
    const errors = (body: object) => {
      const v = validatePolicyRule({ id: "r", ...body });
      return v.ok ? [] : v.errors;
    };
    expect(errors({ tool: "count_lines", effect: "deny", scriptSha256: A })).toEqual(["scriptSha256: only an allow rule names the script it trusts (got effect deny)"]);
    expect(errors({ tool: "*", effect: "allow", matchAll: true, scriptSha256: A })).toEqual(['scriptSha256: names a function tool\'s script, not every tool (got tool "*")']);
    expect(errors({ tool: "count_lines", effect: "allow", scriptSha256: "ABC" })[0]).toMatch(/scriptSha256: must be a sha256 in lowercase hex/);
  });
});

describe("validatePolicyRule", () => {
  it("accepts a rule whose examples hold", () => {
    const result = validatePolicyRule({
      id: "no-push",
      tool: "bash",
      commandPrefix: "git push",
      effect: "deny",
      mustMatch: ["git push", "git push origin main", "ls && git push -f", "sudo git push"],
      mustNotMatch: ["git pushx", "git pull", "echo git push"],
    });
    expect(result.ok).toBe(true);
  });

  it("names each example that fails", () => {
    const result = validatePolicyRule({
      id: "no-push",
      tool: "bash",
      commandPrefix: "git push",
      effect: "deny",
      mustMatch: ["git pull"],
      mustNotMatch: ["git push --force"],
    });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.errors).toHaveLength(2);
    expect(result.errors[0]).toMatch(/mustMatch example "git pull" does not match rule no-push/);
    expect(result.errors[1]).toMatch(/mustNotMatch example "git push --force" matches rule no-push/);
  });

  it("checks allow rules with allow semantics", () => {
    const result = validatePolicyRule({
      id: "allow-tests",
      tool: "bash",
      commandPrefix: "npm test",
      effect: "allow",
      mustMatch: ["npm test -- --watch=false"],
      mustNotMatch: ["npm test && rm -rf build", "npm testx"],
    });
    expect(result.ok).toBe(true);
  });

  it("refuses a bad shape or prefix, naming the field", () => {
    const bad = validatePolicyRule({ id: "", tool: "bash", effect: "maybe" });
    expect(bad.ok).toBe(false);
    if (!bad.ok) expect(bad.errors.join("\n")).toMatch(/id: must not be empty[\s\S]*effect/);
    const prefix = validatePolicyRule({ id: "x", tool: "bash", effect: "deny", commandPrefix: "ls | rm" });
    expect(prefix.ok).toBe(false);
    if (!prefix.ok) expect(prefix.errors[0]).toMatch(/commandPrefix must be one simple command/);
  });

  it("never saves a shell rule that would match every command by accident", () => {
    // An empty prefix with a "must match" example used to save a rule matching every bash call.
    for (const commandPrefix of [undefined, "", "   "]) {
      const result = validatePolicyRule({ id: "r", tool: "bash", effect: "deny", ...(commandPrefix === undefined ? {} : { commandPrefix }), mustMatch: ["npm test"] });
      expect(result.ok, JSON.stringify(commandPrefix)).toBe(false);
      if (!result.ok) expect(result.errors.join("\n")).toMatch(/commandPrefix: .*matchAll: true/);
    }
    expect(validatePolicyRule({ id: "r", tool: "run_script", effect: "ask" }).ok).toBe(false);
    expect(validatePolicyRule({ id: "r", tool: "*", effect: "deny" }).ok).toBe(false);
    const every = validatePolicyRule({ id: "r", tool: "bash", effect: "ask", matchAll: true, mustMatch: ["npm test"] });
    expect(every.ok).toBe(true);
    const both = validatePolicyRule({ id: "r", tool: "bash", effect: "ask", matchAll: true, commandPrefix: "npm test" });
    expect(both.ok).toBe(false);
    if (!both.ok) expect(both.errors[0]).toMatch(/matchAll: must not be set with a commandPrefix \(got "npm test"\)/);
    // Tools that run no command line need no prefix.
    expect(validatePolicyRule({ id: "r", tool: "write_file", effect: "ask" }).ok).toBe(true);
  });

  it("keeps a rule's target, everyone by default, and refuses an unknown one", () => {
    const saved = validatePolicyRule({ id: "r", tool: "bash", commandPrefix: "git push", effect: "deny" });
    expect(saved.ok && (saved.rule.appliesTo ?? "everyone")).toBe("everyone");
    const bad = validatePolicyRule({ id: "r", tool: "bash", commandPrefix: "git push", effect: "deny", appliesTo: "robots" });
    expect(bad.ok).toBe(false);
    if (!bad.ok) expect(bad.errors[0]).toMatch(/^appliesTo: /);
  });
});

describe("policy rules: targets", () => {
  const forPeople = rule({ id: "people-no-push", commandPrefix: "git push", effect: "deny", appliesTo: "people" });
  const forAgents = rule({ id: "agents-no-push", commandPrefix: "git push", effect: "deny", appliesTo: "agents" });
  const push = (caller: "browser" | "api" | "agent") => ({ ...input("git push origin main"), caller });

  it("a people rule governs browser callers only; an agents rule MCP and API callers only", () => {
    expect(evaluatePolicy([forPeople], push("browser")).effect).toBe("deny");
    expect(evaluatePolicy([forPeople], push("agent")).effect).toBeUndefined();
    expect(evaluatePolicy([forPeople], push("api")).effect).toBeUndefined();
    expect(evaluatePolicy([forAgents], push("browser")).effect).toBeUndefined();
    expect(evaluatePolicy([forAgents], push("agent")).effect).toBe("deny");
    expect(evaluatePolicy([forAgents], push("api")).effect).toBe("deny");
    expect(evaluatePolicy([rule({ id: "all", commandPrefix: "git push", effect: "deny" })], push("browser")).effect).toBe("deny");
  });

  it("an allow rule for agents does not allow a person's call, nor the reverse", () => {
    const allowAgents = rule({ id: "a", commandPrefix: "npm test", effect: "allow", appliesTo: "agents" });
    expect(evaluatePolicy([allowAgents], { ...input("npm test"), caller: "agent" }).effect).toBe("allow");
    expect(evaluatePolicy([allowAgents], { ...input("npm test"), caller: "browser" }).effect).toBeUndefined();
  });
});
