import { describe, expect, it } from "vitest";
import { MAX_WARM_POOL, WARM_CONTAINER_BYTES, defaultWarmPoolMemory, warmPoolMaxSize } from "./warm-pool-budget";

const GiB = 1024 ** 3;

describe("warm pool budget", () => {
  it("defaults to one container's memory limit, at most an eighth of the host", () => {
    expect(defaultWarmPoolMemory({ containerMemoryBytes: GiB, hostMemoryBytes: 24 * GiB })).toBe(GiB);
    expect(defaultWarmPoolMemory({ containerMemoryBytes: GiB, hostMemoryBytes: 4 * GiB })).toBe(GiB / 2);
  });

  it("buys as many idle containers as fit, never fewer than the base nor more than the ceiling", () => {
    expect(warmPoolMaxSize(2, GiB)).toBe(Math.floor(GiB / WARM_CONTAINER_BYTES));
    expect(warmPoolMaxSize(2, GiB)).toBe(21);
    expect(warmPoolMaxSize(2, 0)).toBe(2);
    expect(warmPoolMaxSize(5, WARM_CONTAINER_BYTES)).toBe(5);
    expect(warmPoolMaxSize(2, 100 * GiB)).toBe(MAX_WARM_POOL);
  });

  it("keeps a disabled pool disabled", () => {
    expect(warmPoolMaxSize(0, GiB)).toBe(0);
  });
});
