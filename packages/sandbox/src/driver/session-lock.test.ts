import { describe, expect, it } from "vitest";
import { SessionLock } from "./session-lock";

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe("SessionLock", () => {
  it("runs one session's operations one at a time, in order, and others' alongside", async () => {
    const lock = new SessionLock();
    const log: string[] = [];
    let release!: () => void;
    const first = lock.run("a", async () => {
      log.push("a1 start");
      await new Promise<void>((resolve) => (release = resolve));
      log.push("a1 end");
    });
    const second = lock.run("a", async () => {
      log.push("a2");
    });
    const other = lock.run("b", async () => {
      log.push("b1");
    });
    await other;
    await tick();
    expect(log).toEqual(["a1 start", "b1"]);
    release();
    await Promise.all([first, second]);
    expect(log).toEqual(["a1 start", "b1", "a1 end", "a2"]);
  });

  it("a failed operation rejects its caller and does not block the next", async () => {
    const lock = new SessionLock();
    const failed = lock.run("a", () => Promise.reject(new Error("boom")));
    const next = lock.run("a", () => Promise.resolve("ok"));
    await expect(failed).rejects.toThrow("boom");
    await expect(next).resolves.toBe("ok");
    await tick();
    expect(lock.busy).toBe(0);
  });
});
