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

  describe("adaptive", () => {
    /** A pool on a clock moved by hand, whose creates land when the test says so. */
    function makeAdaptivePool(opts: { size: number; maxSize: number; maxParallel?: number }) {
      let n = 0;
      let clock = 1_000_000;
      let inFlight = 0;
      let peak = 0;
      const landing: Array<() => void> = [];
      const disposed: number[] = [];
      const pool = new WarmPool<Item>({
        ...opts,
        demandWindowMs: 60_000,
        adjustEveryMs: 0,
        now: () => clock,
        create: () =>
          new Promise<Item>((resolve) => {
            peak = Math.max(peak, ++inFlight);
            const item = { id: ++n, alive: true };
            landing.push(() => {
              inFlight--;
              resolve(item);
            });
          }),
        dispose: async (item) => void disposed.push(item.id),
        isAlive: (item) => item.alive,
      });
      /** Lands every create, including those started by earlier landings, until the pool is full. */
      const settle = async () => {
        const full = pool.whenFull();
        for (;;) {
          await new Promise((resolve) => setImmediate(resolve));
          const next = landing.shift();
          if (!next) break;
          next();
        }
        await full;
      };
      return {
        pool,
        disposed,
        settle,
        advance: (ms: number) => (clock += ms),
        peak: () => peak,
        resetPeak: () => (peak = inFlight),
      };
    }

    it("refills ahead of demand: after a burst it holds its base plus what the burst took", async () => {
      const { pool, settle } = makeAdaptivePool({ size: 2, maxSize: 10 });
      pool.fill();
      await settle();
      expect(pool.available).toBe(2);
      for (let i = 0; i < 5; i++) pool.take();
      expect(pool.target).toBe(7);
      await settle();
      expect(pool.available).toBe(7);
      // The next burst of five is served from the pool, every one of them.
      const next = Array.from({ length: 5 }, () => pool.take());
      expect(next.every((item) => item !== undefined)).toBe(true);
    });

    it("never grows beyond its maximum (the memory budget)", async () => {
      const { pool, settle } = makeAdaptivePool({ size: 2, maxSize: 6 });
      pool.fill();
      await settle();
      for (let i = 0; i < 20; i++) pool.take();
      expect(pool.target).toBe(6);
      await settle();
      expect(pool.available).toBe(6);
      expect(pool.pending).toBe(0);
    });

    it("refills its base at a time while takes are rare, several at once when they come quickly", async () => {
      const probe = makeAdaptivePool({ size: 2, maxSize: 20, maxParallel: 5 });
      probe.pool.fill();
      expect(probe.peak()).toBe(2);
      await probe.settle();
      probe.resetPeak();
      probe.pool.take();
      await probe.settle();
      expect(probe.peak()).toBe(2);

      const burst = makeAdaptivePool({ size: 2, maxSize: 20, maxParallel: 5 });
      burst.pool.fill();
      await burst.settle();
      burst.resetPeak();
      for (let i = 0; i < 12; i++) burst.pool.take();
      await burst.settle();
      expect(burst.peak()).toBe(5);
      expect(burst.pool.available).toBe(14);
    });

    it("shrinks back to its base once demand stops, disposing the oldest items", async () => {
      const { pool, settle, advance, disposed } = makeAdaptivePool({ size: 2, maxSize: 10 });
      pool.fill();
      await settle();
      for (let i = 0; i < 4; i++) pool.take();
      await settle();
      expect(pool.available).toBe(6);
      const oldest = pool
        .items()
        .slice(0, 4)
        .map((item) => item.id);

      advance(30_000);
      pool.fill();
      expect(pool.available).toBe(6); // the burst is still within the demand window

      advance(31_000);
      pool.fill();
      expect(pool.target).toBe(2);
      expect(pool.available).toBe(2);
      expect(disposed).toEqual(expect.arrayContaining(oldest));
    });

    it("forgets takes one by one as they leave the window", async () => {
      const { pool, settle, advance } = makeAdaptivePool({ size: 1, maxSize: 10 });
      pool.fill();
      await settle();
      pool.take();
      advance(20_000);
      pool.take();
      advance(20_000);
      pool.take();
      expect(pool.target).toBe(4);
      advance(25_000); // the first take is 65 s old
      expect(pool.target).toBe(3);
      advance(20_000);
      expect(pool.target).toBe(2);
      advance(20_000);
      expect(pool.target).toBe(1);
    });
  });
});
