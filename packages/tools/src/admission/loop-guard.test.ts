import { describe, expect, it } from "vitest";
import { LoopGuard } from "./loop-guard";

const fakeClock = (start = 1_000_000) => {
  let now = start;
  return { now: () => now, advance: (ms: number) => void (now += ms) };
};

describe("LoopGuard", () => {
  it("blocks the 3rd identical call within 30 s, saying so", () => {
    const clock = fakeClock();
    const guard = new LoopGuard({ clock });
    expect(guard.check("s1", "bash", { command: "ls" }).blocked).toBe(false);
    clock.advance(10_000);
    expect(guard.check("s1", "bash", { command: "ls" }).blocked).toBe(false);
    clock.advance(10_000);
    const third = guard.check("s1", "bash", { command: "ls" });
    expect(third.blocked).toBe(true);
    if (third.blocked) expect(third.message).toMatch(/3rd identical bash call .* within 30 s/);
  });

  it("uses canonical arguments: key order does not matter", () => {
    const guard = new LoopGuard({ clock: fakeClock() });
    guard.check("s1", "grep", { pattern: "x", path: "." });
    guard.check("s1", "grep", { path: ".", pattern: "x" });
    expect(guard.check("s1", "grep", { pattern: "x", path: "." }).blocked).toBe(true);
  });

  it("does not count calls older than the window", () => {
    const clock = fakeClock();
    const guard = new LoopGuard({ clock });
    guard.check("s1", "bash", { command: "ls" });
    guard.check("s1", "bash", { command: "ls" });
    clock.advance(30_001);
    expect(guard.check("s1", "bash", { command: "ls" }).blocked).toBe(false);
  });

  it("different arguments, tools or sessions are different calls", () => {
    const guard = new LoopGuard({ clock: fakeClock() });
    for (let i = 0; i < 2; i++) guard.check("s1", "bash", { command: "ls" });
    expect(guard.check("s1", "bash", { command: "ls -a" }).blocked).toBe(false);
    expect(guard.check("s1", "read_file", { command: "ls" }).blocked).toBe(false);
    expect(guard.check("s2", "bash", { command: "ls" }).blocked).toBe(false);
  });

  it("keeps blocking while the agent keeps repeating", () => {
    const clock = fakeClock();
    const guard = new LoopGuard({ clock });
    for (let i = 0; i < 3; i++) guard.check("s1", "bash", { command: "ls" });
    clock.advance(20_000);
    expect(guard.check("s1", "bash", { command: "ls" }).blocked).toBe(true);
  });

  it("bounds its memory", () => {
    const guard = new LoopGuard({ clock: fakeClock(), maxKeys: 100 });
    for (let i = 0; i < 1000; i++) guard.check("s1", "bash", { command: `echo ${i}` });
    expect((guard as unknown as { seen: Map<string, number[]> }).seen.size).toBeLessThanOrEqual(101);
  });
});
