import { afterEach, describe, expect, it } from "vitest";
import { createClient } from "redis";
import { RedisClusterBus, maskRedisUrl } from "./redis-cluster-bus";
import { waitFor } from "../chaos/chaos-kit";

// scripts/lib/test-redis.mjs starts it; `npm test` passes the URL to the cluster stage.
const REDIS_URL = process.env["BERTH_TEST_REDIS_URL"] ?? "";

const open: RedisClusterBus[] = [];
async function bus(log: string[] = [], name?: string): Promise<RedisClusterBus> {
  const b = await RedisClusterBus.connect(REDIS_URL, (line) => log.push(line), name ? { name } : {});
  open.push(b);
  return b;
}

afterEach(async () => {
  for (const b of open.splice(0)) await b.close();
});

describe("RedisClusterBus", () => {
  it("needs the test Redis", () => {
    expect(REDIS_URL, "BERTH_TEST_REDIS_URL (npm test's setup starts a Redis)").toMatch(/^redis:\/\//);
  });

  it("carries bytes from one runner's bus to another's once subscribe resolves, in order, to its own listeners too, and not after unsubscribe", async () => {
    const [a, b] = [await bus(), await bus()];
    const channel = `t:${process.pid}:${Math.random()}`;
    const onB: Buffer[] = [];
    const onA: string[] = [];
    const stopB = await b.subscribe(channel, (m) => onB.push(m));
    await a.subscribe(channel, (m) => onA.push(m.toString()));
    const binary = Buffer.from([0, 255, 10, 0xc3]);
    await a.publish(channel, "one");
    await a.publish(channel, binary);
    await b.publish(channel, "three");
    await waitFor("three messages on both buses", () => onB.length === 3 && onA.length === 3);
    expect(onB.map((m) => m.toString("hex"))).toEqual([Buffer.from("one").toString("hex"), binary.toString("hex"), Buffer.from("three").toString("hex")]);
    expect(onA).toEqual(["one", binary.toString(), "three"]);

    await stopB();
    await a.publish(channel, "four");
    await waitFor("the fourth message on A", () => onA.length === 4);
    expect(onB).toHaveLength(3);
  });

  it("counts the runners subscribed to a channel: one per bus however many listeners, none once they end", async () => {
    const [a, b, c] = [await bus(), await bus(), await bus()];
    const channel = `t:${process.pid}:${Math.random()}`;
    expect(await a.subscribers(channel)).toBe(0);
    const stopB = await b.subscribe(channel, () => undefined);
    const stopB2 = await b.subscribe(channel, () => undefined);
    const stopC = await c.subscribe(channel, () => undefined);
    expect(await a.subscribers(channel)).toBe(2);
    await stopB();
    expect(await a.subscribers(channel)).toBe(2);
    await stopB2();
    await stopC();
    expect(await a.subscribers(channel)).toBe(0);
  });

  it("two listeners of one channel on one bus each hear a message once; ending one keeps the other", async () => {
    const a = await bus();
    const channel = `t:${process.pid}:${Math.random()}`;
    const first: string[] = [];
    const second: string[] = [];
    const stopFirst = await a.subscribe(channel, (m) => first.push(m.toString()));
    await a.subscribe(channel, (m) => second.push(m.toString()));
    await a.publish(channel, "x");
    await waitFor("x", () => second.length === 1);
    await stopFirst();
    await a.publish(channel, "y");
    await waitFor("y", () => second.length === 2);
    expect(first).toEqual(["x"]);
    expect(second).toEqual(["x", "y"]);
  });

  it("logs a lost connection once with the password masked, reconnects, and its subscriptions work again", async () => {
    const log: string[] = [];
    const name = `t-${process.pid}-${Math.floor(Math.random() * 1e6)}`;
    const [a, b] = [await bus(log, name), await bus()];
    const channel = `t:${process.pid}:${Math.random()}`;
    const got: string[] = [];
    await a.subscribe(channel, (m) => got.push(m.toString()));
    // Another client ends A's subscriber connection (found by its name), as a Redis restart would.
    const admin = createClient({ url: REDIS_URL });
    await admin.connect();
    try {
      const list = String(await admin.sendCommand(["CLIENT", "LIST", "TYPE", "pubsub"]));
      const ids = list.split("\n").filter((line) => line.includes(` name=${name} `)).map((line) => /\bid=(\d+)/.exec(line)?.[1]);
      expect(ids).toHaveLength(1);
      await admin.sendCommand(["CLIENT", "KILL", "ID", String(ids[0])]);
    } finally {
      await admin.close();
    }
    await waitFor("the reconnect line", () => log.some((l) => /is back/.test(l)));
    await waitFor("A's bus up again", () => a.up);
    // Re-subscribed by the client on reconnect: publish until it arrives (the SUBSCRIBE goes out after "ready").
    await waitFor("a message after the reconnect", () => {
      void b.publish(channel, "after");
      return got.includes("after");
    });
    const lost = log.filter((l) => /subscriber connection .* lost/.test(l));
    expect(lost).toHaveLength(1);
    const password = decodeURIComponent(new URL(REDIS_URL).password);
    expect(password.length).toBeGreaterThan(0);
    for (const line of log) expect(line).not.toContain(password);
    expect(lost[0]).toContain(maskRedisUrl(REDIS_URL));
  });

  it("refuses to start with a wrong password, naming the masked URL and never the password", async () => {
    const url = new URL(REDIS_URL);
    url.password = "not-the-password-7f3a";
    const log: string[] = [];
    const error = await RedisClusterBus.connect(url.href, (line) => log.push(line)).then(
      () => null,
      (e: unknown) => e as Error,
    );
    expect(error?.message).toMatch(/BERTH_REDIS_URL: Redis at redis:\/\/:\*\*\*@127\.0\.0\.1:\d+ refused the password \(WRONGPASS\)/);
    for (const line of [error?.message ?? "", ...log]) expect(line).not.toContain("not-the-password-7f3a");
  });

  it("refuses to start when nothing answers, naming the masked URL", async () => {
    const url = new URL(REDIS_URL);
    url.port = "1";
    const error = await RedisClusterBus.connect(url.href, () => undefined).then(
      () => null,
      (e: unknown) => e as Error,
    );
    expect(error?.message).toMatch(/BERTH_REDIS_URL: Redis at redis:\/\/:\*\*\*@127\.0\.0\.1:1 did not answer within 10 s/);
  }, 30_000);
});
