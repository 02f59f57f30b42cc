import { describe, expect, it } from "vitest";
import type { ActionClass, Autonomy, Decision } from "@berth/protocol";
import { decide } from "./decide";

const LEVELS: Autonomy[] = ["read-only", "default", "trusted", "yolo"];

// Rows exactly as docs/tools.md writes the autonomy table.
const TABLE: Array<[string, ActionClass, boolean, Decision[]]> = [
  ["read", "read", true, ["allow", "allow", "allow", "allow"]],
  ["write", "write", true, ["deny", "allow", "allow", "allow"]],
  ["execute (recognised)", "execute", true, ["deny", "allow", "allow", "allow"]],
  ["execute (other)", "execute", false, ["deny", "ask", "allow", "allow"]],
  ["unknown", "unknown", false, ["deny", "ask", "allow", "allow"]],
  ["network", "network", true, ["deny", "ask", "allow", "allow"]],
  ["dispatch / plan-scale", "dispatch", true, ["deny", "ask", "ask", "allow"]],
  ["system_modify", "system_modify", true, ["deny", "ask", "ask", "allow"]],
  ["git_destructive", "git_destructive", true, ["deny", "deny", "deny", "deny"]],
];

describe("decide: the autonomy table", () => {
  for (const [row, actionClass, recognised, expected] of TABLE) {
    LEVELS.forEach((autonomy, i) => {
      it(`${row} at ${autonomy} → ${expected[i]}`, () => {
        expect(decide(actionClass, recognised, autonomy)).toBe(expected[i]);
      });
    });
  }

  it("recognised only matters for execute", () => {
    expect(decide("network", false, "trusted")).toBe("allow");
    expect(decide("system_modify", false, "yolo")).toBe("allow");
    expect(decide("write", false, "default")).toBe("allow");
  });

  describe("alwaysAsk turns allow into ask, never deny into anything else", () => {
    for (const [row, actionClass, recognised, expected] of TABLE) {
      LEVELS.forEach((autonomy, i) => {
        const want = expected[i] === "allow" ? "ask" : expected[i];
        it(`${row} at ${autonomy} → ${want}`, () => {
          expect(decide(actionClass, recognised, autonomy, { alwaysAsk: true })).toBe(want);
        });
      });
    }
  });
});
