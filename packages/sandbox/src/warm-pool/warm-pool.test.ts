import { describe, expect, it } from "vitest";
import { WarmPool } from "./warm-pool";

interface Item {
  id: number;
  alive: boolean;
}

function makePool(size: number, failFirst = 0) {
  let n = 0;
  let failures = failFirst;
  const disposed: number[] = [];
  const pool = new WarmPool<Item>({
    size,
    create: async () => {
      if (failures-- > 0) throw new Error("engine busy");
      return { id: ++n, alive: true };
    },
    dispose: async (item) => void disposed.push(item.id),
    isAlive: (item) => item.alive,
    retryDelayMs: 5,
  });
  return { pool, disposed };
}

describe("WarmPool", () => {
  it("fills to its size and refills after a take", async () => {
    const { pool } = makePool(2);
    pool.fill();
    await pool.whenFull();
    expect(pool.available).toBe(2);
    expect(pool.take()?.id).toBe(1);
    await pool.whenFull();
    expect(pool.available).toBe(2);
  });

  it("skips and disposes items that died while waiting", async () => {
    const { pool, disposed } = makePool(2);
    pool.fill();
    await pool.whenFull();
    const first = pool.take();
    expect(first?.id).toBe(1);
    await pool.whenFull();
    // items 2 and 3 wait; 2 dies
    pool.items()[0]!.alive = false;
    expect(pool.take()?.id).toBe(3);
    expect(disposed).toContain(2);
  });

  it("retries failed creates with backoff", async () => {
    const { pool } = makePool(1, 2);
    pool.fill();
    await pool.whenFull();
    expect(pool.available).toBe(1);
  });

  it("is empty and stays empty after drain", async () => {
    const { pool, disposed } = makePool(2);
    pool.fill();
    await pool.whenFull();
    await pool.drain();
    expect(disposed.sort()).toEqual([1, 2]);
    expect(pool.take()).toBeUndefined();
    expect(pool.available).toBe(0);
  });

  it("with size 0 never creates anything", async () => {
    const { pool } = makePool(0);
    pool.fill();
    await pool.whenFull();
    expect(pool.take()).toBeUndefined();
    expect(pool.pending).toBe(0);
  });
});
