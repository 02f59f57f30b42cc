import { describe, expect, it } from "vitest";
import { useTestRepositories } from "./testing/open-test-repositories";

const t = useTestRepositories();
const key = (keyId: string, runnerId: string) => ({ keyId, runnerId, publicKey: `PEM of ${keyId}` });

describe("RunnerKeyRepository", () => {
  it("publishes each runner's key, retires the runner's previous one, and lists them all", async () => {
    const keys = t.repos.runnerKeys;
    await keys.publish(key("aaaaaaaaaaaaaaaa", "runner-a"), new Date("2026-12-01T10:00:00Z"));
    await keys.publish(key("bbbbbbbbbbbbbbbb", "runner-b"), new Date("2026-12-01T10:00:01Z"));
    const rotated = await keys.publish(key("cccccccccccccccc", "runner-a"), new Date("2026-12-01T11:00:00Z"));
    expect(rotated).toEqual({ ...key("cccccccccccccccc", "runner-a"), createdAt: "2026-12-01T11:00:00.000Z", retiredAt: null });

    expect((await keys.list()).map((k) => [k.keyId, k.runnerId, k.retiredAt])).toEqual([
      ["aaaaaaaaaaaaaaaa", "runner-a", "2026-12-01T11:00:00.000Z"],
      ["bbbbbbbbbbbbbbbb", "runner-b", null],
      ["cccccccccccccccc", "runner-a", null],
    ]);
    expect((await keys.ofRunner("runner-a")).map((k) => k.keyId)).toEqual(["aaaaaaaaaaaaaaaa", "cccccccccccccccc"]);
  });

  it("keeps a key's row when it is published again (each start), and refuses to publish a retired key", async () => {
    const keys = t.repos.runnerKeys;
    const first = await keys.publish(key("dddddddddddddddd", "runner-d"), new Date("2026-12-01T10:00:00Z"));
    expect(await keys.publish(key("dddddddddddddddd", "runner-d"), new Date("2026-12-01T10:10:00Z"))).toEqual(first);
    await keys.publish(key("eeeeeeeeeeeeeeee", "runner-d"), new Date("2026-12-01T10:30:00Z"));
    await expect(keys.publish(key("dddddddddddddddd", "runner-d"))).rejects.toThrow(
      "receipt key dddddddddddddddd was retired at 2026-12-01T10:30:00.000Z: a retired key never signs again",
    );
    expect((await keys.get("eeeeeeeeeeeeeeee"))?.retiredAt).toBeNull();
    expect(await keys.get("ffffffffffffffff")).toBeNull();
  });
});
