import { expect, it } from "vitest";
import type { ActionClass } from "@berth/protocol";
import { classifyCommand } from "../classify-command";

export const ROOT = "/workspace";

export const classify = (command: string, cwd?: string) =>
  classifyCommand(command, { workspaceRoot: ROOT, ...(cwd ? { cwd } : {}) });

export type Expect = [command: string, actionClass: ActionClass, recognised?: boolean, alwaysAsk?: boolean];

/** One test per command: its class, and (when given) whether it is recognised and always asks. */
export function check(cases: Expect[]) {
  for (const [command, actionClass, recognised, alwaysAsk] of cases) {
    it(`${JSON.stringify(command)} → ${actionClass}${recognised === undefined ? "" : recognised ? " recognised" : " other"}${alwaysAsk ? " always-ask" : ""}`, () => {
      const result = classify(command);
      expect(result.actionClass, result.reasons.join("\n")).toBe(actionClass);
      if (recognised !== undefined) expect(result.recognised, result.reasons.join("\n")).toBe(recognised);
      expect(result.alwaysAsk, result.reasons.join("\n")).toBe(alwaysAsk ?? false);
    });
  }
}
