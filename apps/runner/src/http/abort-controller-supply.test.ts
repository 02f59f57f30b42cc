import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { AbortControllerSupply } from "./abort-controller-supply";

describe("AbortControllerSupply", () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it("hands each taker a fresh controller of its own, made ahead once a batch is ready", () => {
    const supply = new AbortControllerSupply(8, 4);
    const taken = Array.from({ length: 3 }, () => supply.take());
    vi.runOnlyPendingTimers();
    for (let i = 0; i < 30; i++) {
      taken.push(supply.take());
      if (i % 5 === 0) vi.runOnlyPendingTimers();
    }
    expect(new Set(taken).size).toBe(taken.length);
    expect(new Set(taken.map((controller) => controller.signal)).size).toBe(taken.length);
    expect(taken.every((controller) => !controller.signal.aborted)).toBe(true);
  });

  it("makes a controller at once when none is ready, and one aborting touches no other", () => {
    const supply = new AbortControllerSupply(4, 2);
    const first = supply.take();
    const second = supply.take();
    first.abort();
    expect(first.signal.aborted).toBe(true);
    expect(second.signal.aborted).toBe(false);
    vi.runOnlyPendingTimers();
    expect(supply.take().signal.aborted).toBe(false);
  });

  it("makes the next batch on a timer, not while a call takes one", () => {
    const supply = new AbortControllerSupply(4, 2);
    supply.take();
    expect(vi.getTimerCount()).toBe(1);
    supply.take();
    expect(vi.getTimerCount()).toBe(1);
    vi.runOnlyPendingTimers();
    expect(vi.getTimerCount()).toBe(0);
    supply.take();
    supply.take();
    expect(vi.getTimerCount()).toBe(0);
    supply.take();
    expect(vi.getTimerCount()).toBe(1);
  });
});
