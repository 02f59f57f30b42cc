import { describe, expect, it } from "vitest";
import { ActiveRuns } from "./active-runs";

describe("ActiveRuns", () => {
  it("aborts a tracked run's signal on cancel, once, and not after its call ended", () => {
    const runs = new ActiveRuns();
    const caller = new AbortController();
    const run = runs.track("run_1", "s", caller.signal);
    expect(runs.cancel("run_1", { by: "ada", via: "http" })).toBe(true);
    expect(run.signal.aborted).toBe(true);
    expect(String(run.signal.reason)).toContain("cancelled by ada");
    expect(runs.cancel("run_1", { by: "ada", via: "http" })).toBe(false);
    run.done();
    expect(runs.has("run_1")).toBe(false);
    expect(runs.cancel("run_1", { by: "ada", via: "socket" })).toBe(false);
  });

  it("aborts when the caller does (a dropped connection)", () => {
    const runs = new ActiveRuns();
    const caller = new AbortController();
    const run = runs.track("run_2", "s", caller.signal);
    caller.abort();
    expect(run.signal.aborted).toBe(true);
  });
});
