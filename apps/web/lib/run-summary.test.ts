import { describe, expect, it } from "vitest";
import { rerunBlocker, runSummary } from "./run-summary";

describe("runSummary", () => {
  it("names bash's command and run_script's script with its arguments", () => {
    expect(runSummary("bash", { command: "ls -la" })).toBe("ls -la");
    expect(
      runSummary("run_script", { interpreter: "python3", script: "train.py", args: ["--epochs", "3", "a b"] }),
    ).toBe("python3 train.py --epochs 3 'a b'");
  });
  it("falls back to the tool's name", () => {
    expect(runSummary("grep", { pattern: "x" })).toBe("grep");
    expect(runSummary("run_script", null)).toBe("run_script");
  });
});

describe("rerunBlocker", () => {
  it("refuses a run whose env values were masked when stored", () => {
    expect(rerunBlocker({ script: "a.sh", env: { TOKEN: "***" } })).toMatch(/env values/);
    expect(rerunBlocker({ script: "a.sh", env: {} })).toBeNull();
    expect(rerunBlocker({ command: "ls" })).toBeNull();
  });
});
