import { describe, expect, it } from "vitest";
import { generateCommands, runAdmissionBench } from "./bench";
import { classifyCommand } from "./classify-command";

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
});
