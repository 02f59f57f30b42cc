import { describe, expect, it } from "vitest";
import { seedSessions, useTestRepositories } from "./testing/open-test-repositories";
import { WriteBehind } from "./write-behind";

const t = useTestRepositories(async (repos) => {
  await seedSessions(repos, { ses_a: "user_a" });
});

describe("WriteBehind", () => {
  it("makes a read of runs wait for a run written behind its reply", async () => {
    const startedAt = new Date();
    const written = (async () => {
      await new Promise((resolve) => setTimeout(resolve, 50));
      await t.repos.runs.create({ id: "run_behind", sessionId: "ses_a", userId: "user_a", tool: "bash", kind: "bash", args: {}, secrets: [], caller: null, startedAt });
    })();
    t.repos.writes.track(written);
    expect(t.repos.writes.idle).toBe(false);
    expect((await t.repos.runs.get("run_behind"))?.status).toBe("running");
    expect(t.repos.writes.idle).toBe(true);
  });

  it("starts a write asked for `later` on a timer, not in the turn that asked, in the order asked, and at once for a reader", async () => {
    const writes = new WriteBehind();
    const started: string[] = [];
    const first = writes.later(async () => void started.push("first"));
    void writes.later(async () => void started.push("second"));
    await Promise.resolve();
    expect(started).toEqual([]);
    expect(writes.idle).toBe(false);
    await first;
    expect(started).toEqual(["first", "second"]);
    const third = writes.later(async () => void started.push("third"));
    await writes.settled();
    expect(started).toEqual(["first", "second", "third"]);
    await third;
    expect(writes.idle).toBe(true);
  });

  it("starts a write `after` a name only once the one asked for before it under that name has landed or failed, holding up no other", async () => {
    const errors: unknown[] = [];
    const writes = new WriteBehind((error) => errors.push(error));
    const started: string[] = [];
    let landRow!: () => void;
    const row = writes.later(() => new Promise<void>((resolve) => (landRow = resolve)).then(() => void started.push("row")), { after: "run_1" });
    const failed = writes.later(async () => {
      started.push("end");
      throw new Error("row locked");
    }, { after: "run_1" });
    const receipt = writes.later(async () => void started.push("receipt"), { after: "run_1" });
    const other = writes.later(async () => void started.push("other run"), { after: "run_2" });
    const plain = writes.later(async () => void started.push("plain"));
    await Promise.all([other, plain]);
    expect(started).toEqual(["other run", "plain"]);
    landRow();
    await row;
    await expect(failed).rejects.toThrow("row locked");
    await receipt;
    expect(started).toEqual(["other run", "plain", "row", "end", "receipt"]);
    await writes.settled();
    expect(errors.map((e) => (e as Error).message)).toEqual(["row locked"]);
    expect(writes.idle).toBe(true);
  });

  it("reports a failed write to its handler and never throws it at a reader", async () => {
    const errors: unknown[] = [];
    const writes = new WriteBehind((error) => errors.push(error));
    writes.track(Promise.reject(new Error("disk full")));
    await writes.settled();
    expect(errors.map((e) => (e as Error).message)).toEqual(["disk full"]);
  });
});
