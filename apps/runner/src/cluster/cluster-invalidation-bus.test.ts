import { describe, expect, it } from "vitest";
import type { Invalidation } from "../auth/invalidation-bus";
import { LocalClusterBus, type ClusterBus } from "./cluster-bus";
import { ClusterInvalidationBus, INVALIDATE_CHANNEL } from "./cluster-invalidation-bus";

describe("ClusterInvalidationBus", () => {
  it("delivers to this runner's caches before publish returns, to the other runner's once, and never twice here", async () => {
    const bus = new LocalClusterBus();
    const log: string[] = [];
    const a = await ClusterInvalidationBus.start(bus, (l) => log.push(l));
    const b = await ClusterInvalidationBus.start(bus, (l) => log.push(l));
    const onA: Invalidation[] = [];
    const onB: Invalidation[] = [];
    a.subscribe((e) => onA.push(e));
    const stopB = b.subscribe((e) => onB.push(e));
    a.publish({ kind: "credential", id: "tok_1" });
    expect(onA).toEqual([{ kind: "credential", id: "tok_1" }]);
    await new Promise((r) => setTimeout(r, 0));
    expect(onB).toEqual([{ kind: "credential", id: "tok_1" }]);
    expect(onA).toHaveLength(1);
    stopB();
    b.publish({ kind: "user", id: "u_2" });
    await new Promise((r) => setTimeout(r, 0));
    expect(onA).toEqual([{ kind: "credential", id: "tok_1" }, { kind: "user", id: "u_2" }]);
    expect(onB).toHaveLength(1);
    expect(log).toEqual([]);
  });

  it("ignores a malformed message, naming the field", async () => {
    const bus = new LocalClusterBus();
    const log: string[] = [];
    const a = await ClusterInvalidationBus.start(bus, (l) => log.push(l));
    const got: Invalidation[] = [];
    a.subscribe((e) => got.push(e));
    await bus.publish(INVALIDATE_CHANNEL, JSON.stringify({ from: "x", event: { kind: "token", id: "t" } }));
    await new Promise((r) => setTimeout(r, 0));
    expect(got).toEqual([]);
    expect(log).toHaveLength(1);
    expect(log[0]).toMatch(/invalidate: a message ignored: .*kind/);
    await a.close();
  });

  it("sent() resolves once every publish so far is answered, a failed one logged", async () => {
    const answers: Array<(error?: Error) => void> = [];
    const bus: ClusterBus = {
      // Reached only this runner's own subscription: nobody else to wait for.
      publish: () => new Promise<number>((resolve, reject) => answers.push((error) => (error ? reject(error) : resolve(1)))),
      subscribe: () => Promise.resolve(() => Promise.resolve()),
      subscribers: () => Promise.resolve(0),
      close: () => Promise.resolve(),
    };
    const log: string[] = [];
    const invalidation = await ClusterInvalidationBus.start(bus, (l) => log.push(l));
    invalidation.publish({ kind: "credential", id: "tok_1" });
    invalidation.publish({ kind: "user", id: "u_1" });
    let sent = false;
    void invalidation.sent().then(() => (sent = true));
    answers[0]?.();
    await new Promise((r) => setTimeout(r, 0));
    expect(sent).toBe(false);
    answers[1]?.(new Error("connection lost"));
    await new Promise((r) => setTimeout(r, 0));
    expect(sent).toBe(true);
    expect(log).toEqual(["invalidation of user u_1 not sent to the other runners: connection lost"]);
  });

  it("sent() waits until every other runner has applied the invalidation, not only until Redis took it", async () => {
    const bus = new LocalClusterBus();
    const a = await ClusterInvalidationBus.start(bus, () => undefined);
    // Runner B's deliveries are held back, as a busy runner reads its subscriber connection late.
    const held: Array<() => void> = [];
    const slow: ClusterBus = {
      publish: (channel, message) => bus.publish(channel, message),
      subscribe: (channel, listener) => bus.subscribe(channel, (bytes) => held.push(() => listener(bytes))),
      subscribers: (channel) => bus.subscribers(channel),
      close: () => Promise.resolve(),
    };
    const b = await ClusterInvalidationBus.start(slow, () => undefined);
    const onB: Invalidation[] = [];
    b.subscribe((e) => onB.push(e));
    a.publish({ kind: "credential", id: "tok_1" });
    let sent = false;
    void a.sent().then(() => (sent = true));
    await new Promise((r) => setTimeout(r, 20));
    expect(sent).toBe(false);
    for (const deliver of held.splice(0)) deliver();
    await new Promise((r) => setTimeout(r, 0));
    expect(onB).toEqual([{ kind: "credential", id: "tok_1" }]);
    expect(sent).toBe(true);
    await Promise.all([a.close(), b.close()]);
  });

  it("sent() gives up on a runner that never confirms after the timeout, and says so", async () => {
    const bus = new LocalClusterBus();
    const log: string[] = [];
    const a = await ClusterInvalidationBus.start(bus, (l) => log.push(l), { confirmTimeoutMs: 30 });
    // Another subscriber on the channel that applies nothing and confirms nothing (a stuck runner).
    await bus.subscribe(INVALIDATE_CHANNEL, () => undefined);
    a.publish({ kind: "user", id: "u_1" });
    let sent = false;
    void a.sent().then(() => (sent = true));
    await new Promise((r) => setTimeout(r, 5));
    expect(sent).toBe(false);
    await new Promise((r) => setTimeout(r, 60));
    expect(sent).toBe(true);
    expect(log).toEqual(["invalidation of user u_1: 1 of 1 other runners did not confirm it within 0.03 s (their cached entry ages out by itself)"]);
    await a.close();
  });
});
