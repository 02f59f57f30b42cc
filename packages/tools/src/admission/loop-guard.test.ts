import { describe, expect, it } from "vitest";
import { LoopGuard, loopGuardKey } from "./loop-guard";

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

  it("a repeat after the workspace changed is not a repeat: write → read, ten rounds", () => {
    const clock = fakeClock();
    const guard = new LoopGuard({ clock });
    let generation = 0;
    const read = loopGuardKey("s1", "read src.txt");
    for (let round = 0; round < 10; round++) {
      const write = loopGuardKey("s1", `write v${round}`);
      expect(guard.checkKey(write, "write_file", generation).blocked).toBe(false);
      guard.settle(write, { callId: `call_w${round}`, generation: ++generation });
      clock.advance(500);
      expect(guard.checkKey(read, "read_file", generation).blocked, `round ${round}`).toBe(false);
      guard.settle(read, { callId: `call_r${round}`, generation });
      clock.advance(500);
    }
  });

  it("three identical reads of an unchanged workspace still block, pointing back to the earlier result", () => {
    const clock = fakeClock(Date.UTC(2026, 11, 1, 13, 42, 5));
    const guard = new LoopGuard({ clock });
    const read = loopGuardKey("s1", "read src.txt");
    for (const callId of ["call_1", "call_2"]) {
      expect(guard.checkKey(read, "read_file", 4).blocked).toBe(false);
      guard.settle(read, { callId, generation: 4 });
      clock.advance(2000);
    }
    const third = guard.checkKey(read, "read_file", 4);
    expect(third.blocked).toBe(true);
    if (third.blocked) {
      expect(third.message).toMatch(
        /3rd identical read_file call .* within 30 s, and nothing in the workspace has changed/,
      );
      expect(third.message).toContain("call call_2 at 2026-12-01T13:42:07.000Z (2 s ago)");
    }
  });

  it("a call's own change is not a change: the same command three times over an unchanged tree blocks", () => {
    const guard = new LoopGuard({ clock: fakeClock() });
    const test = loopGuardKey("s1", "npm test");
    let generation = 7;
    for (let i = 1; i <= 2; i++) {
      expect(guard.checkKey(test, "bash", generation).blocked).toBe(false);
      guard.settle(test, { callId: `call_${i}`, runId: `run_${i}`, generation: ++generation });
    }
    const third = guard.checkKey(test, "bash", generation);
    expect(third.blocked).toBe(true);
    if (third.blocked) expect(third.message).toContain("call call_2 (run run_2)");
  });

  it("a result something else overtook while it ran is not the result of a repeat", () => {
    const guard = new LoopGuard({ clock: fakeClock() });
    const cat = loopGuardKey("s1", "cat log");
    guard.checkKey(cat, "bash", 1);
    guard.settle(cat, { callId: "call_1", generation: undefined });
    guard.checkKey(cat, "bash", 3);
    guard.settle(cat, { callId: "call_2", generation: 4 });
    expect(guard.checkKey(cat, "bash", 4).blocked).toBe(false);
    expect(guard.checkKey(cat, "bash", 4).blocked).toBe(true);
  });
});
