import { describe, expect, it } from "vitest";
import { askShares, generateCommands, runAdmissionBench, runCorpusBench, verdictsBeforeAfter } from "./bench";
import { classifyCommand } from "../shell";

// Figures only: the bench is checked for running and for a realistic mix, never for speed.
describe("admission bench", () => {
  it("generates a deterministic, varied mix that classifies without parse errors", () => {
    const commands = generateCommands(500);
    expect(generateCommands(500)).toEqual(commands);
    expect(new Set(commands).size).toBeGreaterThan(100);
    const results = commands.map((c) => classifyCommand(c, { workspaceRoot: "/workspace" }));
    expect(results.filter((r) => r.reasons.some((reason) => reason.startsWith("cannot parse")))).toEqual([]);
    const classes = new Set(results.map((r) => r.actionClass));
    for (const expected of ["execute", "system_modify", "network", "git_destructive"])
      expect(classes).toContain(expected);
  });

  it("reports its figures", () => {
    const result = runAdmissionBench({ commands: 300, print: false });
    expect(result.admitCalls).toBe(300);
    expect(result.classifyPerSecond).toBeGreaterThan(0);
    expect(result.admitP50Ms).toBeGreaterThanOrEqual(0);
    expect(Object.values(result.verdicts).reduce((a, b) => a + b, 0)).toBe(300);
  });

  it("measures the corpus against parsing alone and counts the asks before and after", () => {
    const result = runCorpusBench({ rounds: 2, print: false });
    expect(result.commands).toBeGreaterThanOrEqual(1000);
    expect(result.withSubstitutions).toBeGreaterThan(100);
    expect(result.classifyP50Ms).toBeGreaterThan(0);
    expect(result.parseP50Ms).toBeGreaterThan(0);
    expect(result.loadAverage).toHaveLength(3);
    // Classified substitutions ask less; nothing that asked before stopped being asked for other reasons.
    expect(result.asks.default.after).toBeLessThan(result.asks.default.before);
    expect(result.asks.yolo.after).toBeLessThan(result.asks.yolo.before);
    expect(result.asksWithSubstitutionsAtDefault.after).toBeLessThan(result.asksWithSubstitutionsAtDefault.before);
  });

  it("the old rule asked for every substitution; the new one for what cannot be seen", () => {
    expect(verdictsBeforeAfter("echo $(whoami)", "yolo")).toEqual({ before: "ask", after: "allow" });
    expect(verdictsBeforeAfter("$(echo git) reset --hard", "yolo")).toEqual({ before: "ask", after: "ask" });
    expect(verdictsBeforeAfter("echo $(git push -f)", "default")).toEqual({ before: "deny", after: "deny" });
    expect(verdictsBeforeAfter("npm test", "default")).toEqual({ before: "allow", after: "allow" });
    expect(askShares(["echo $(date)", "ls", "sudo x"], "default")).toEqual({ before: 2, after: 1 });
  });
});
