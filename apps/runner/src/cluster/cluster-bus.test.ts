import { describe, expect, it } from "vitest";
import { LocalClusterBus } from "./cluster-bus";

describe("LocalClusterBus", () => {
  it("delivers to the channel's subscribers after publish returns, in order, and not after unsubscribe", async () => {
    const bus = new LocalClusterBus();
    const got: string[] = [];
    const unsubscribe = await bus.subscribe("a", (m) => got.push(m.toString()));
    await bus.subscribe("b", (m) => got.push(`b:${m.toString()}`));
    void bus.publish("a", "1");
    void bus.publish("a", Buffer.from("2"));
    expect(got).toEqual([]);
    await Promise.resolve();
    expect(got).toEqual(["1", "2"]);
    await unsubscribe();
    await bus.publish("a", "3");
    await bus.publish("b", "4");
    await Promise.resolve();
    expect(got).toEqual(["1", "2", "b:4"]);
  });

  it("says whether a channel has subscribers (one runner: it is the only one)", async () => {
    const bus = new LocalClusterBus();
    expect(await bus.subscribers("a")).toBe(0);
    const unsubscribe = await bus.subscribe("a", () => undefined);
    expect([await bus.subscribers("a"), await bus.subscribers("b")]).toEqual([1, 0]);
    await unsubscribe();
    expect(await bus.subscribers("a")).toBe(0);
  });
});
