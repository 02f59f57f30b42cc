import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { LateAbortWatch } from "./late-abort-watch";

/** A signal that counts the listeners added to it. */
function countedSignal() {
  const controller = new AbortController();
  const added = { count: 0 };
  const add = controller.signal.addEventListener.bind(controller.signal);
  controller.signal.addEventListener = ((...args: Parameters<AbortSignal["addEventListener"]>) => {
    added.count++;
    add(...args);
  }) as AbortSignal["addEventListener"];
  return { controller, added };
}

/** A watch of 10 ms with call 1 watched on a counted signal. */
function watchedCall() {
  const watch = new LateAbortWatch(10);
  const { controller, added } = countedSignal();
  const onAbort = vi.fn();
  watch.watch(1, controller.signal, onAbort);
  return { watch, controller, added, onAbort };
}

describe("LateAbortWatch", () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it("never listens to the signal of a call that ends before the watch comes round", () => {
    const { watch, controller, added, onAbort } = watchedCall();
    watch.end(1);
    vi.advanceTimersByTime(20);
    controller.abort();
    expect(added.count).toBe(0);
    expect(onAbort).not.toHaveBeenCalled();
    expect(watch.size).toBe(0);
  });

  it("acts on an abort that came before the watch came round, when it does", () => {
    const { watch, controller, onAbort } = watchedCall();
    controller.abort();
    expect(onAbort).not.toHaveBeenCalled();
    vi.advanceTimersByTime(10);
    expect(onAbort).toHaveBeenCalledTimes(1);
    expect(watch.size).toBe(0);
  });

  it("listens to a call that lasts, acts on its abort once, and leaves nothing behind", () => {
    const { watch, controller, added, onAbort } = watchedCall();
    vi.advanceTimersByTime(10);
    expect(added.count).toBe(1);
    controller.abort();
    controller.abort();
    expect(onAbort).toHaveBeenCalledTimes(1);
    expect(watch.size).toBe(0);
  });

  it("stops listening when a listened call ends", () => {
    const { watch, controller, onAbort } = watchedCall();
    vi.advanceTimersByTime(10);
    watch.end(1);
    controller.abort();
    expect(onAbort).not.toHaveBeenCalled();
    expect(watch.size).toBe(0);
  });

  it("acts on a signal that had already aborted without waiting for the watch", async () => {
    const watch = new LateAbortWatch(10_000);
    const onAbort = vi.fn();
    watch.watch(1, AbortSignal.abort(), onAbort);
    await Promise.resolve();
    expect(onAbort).toHaveBeenCalledTimes(1);
    expect(watch.size).toBe(0);
  });

  it("serves every call that starts while it is armed with one timer", () => {
    const watch = new LateAbortWatch(10);
    const controllers = Array.from({ length: 5 }, () => new AbortController());
    const aborted: number[] = [];
    controllers.forEach((controller, id) => {
      watch.watch(id, controller.signal, () => aborted.push(id));
      vi.advanceTimersByTime(1);
    });
    expect(vi.getTimerCount()).toBe(1);
    vi.advanceTimersByTime(10);
    controllers[3]!.abort();
    expect(aborted).toEqual([3]);
    expect(watch.size).toBe(4);
  });
});
