import { describe, expect, it } from "vitest";
import { SessionOwners } from "./session-owners";

/** A fake of the one repository call SessionOwners makes, counting lookups and failing on demand. */
function fakeDb(owners: Record<string, string>, failFirst = false) {
  let calls = 0;
  const db = {
    ownerOf: async (id: string) => {
      calls += 1;
      if (failFirst && calls === 1) throw new Error("database busy");
      return owners[id] ?? null;
    },
  };
  return { db, calls: () => calls };
}

describe("SessionOwners", () => {
  it("looks a session's owner up once, and answers null for an unknown session", async () => {
    const { db, calls } = fakeDb({ ses_a: "user_alice" });
    const owners = new SessionOwners(db);
    expect(await Promise.all([owners.of("ses_a"), owners.of("ses_a"), owners.of("ses_a")])).toEqual([
      "user_alice",
      "user_alice",
      "user_alice",
    ]);
    expect(await owners.of("ses_gone")).toBeNull();
    expect(calls()).toBe(2);
  });

  it("keeps one session's answers in the order they were asked, so its events stay in order", async () => {
    const { db } = fakeDb({ ses_a: "user_alice" });
    const owners = new SessionOwners(db);
    const order: number[] = [];
    await Promise.all([1, 2, 3].map((n) => owners.of("ses_a").then(() => order.push(n))));
    expect(order).toEqual([1, 2, 3]);
  });

  it("does not remember a failed lookup: the next event asks again", async () => {
    const { db, calls } = fakeDb({ ses_a: "user_alice" }, true);
    const owners = new SessionOwners(db);
    await expect(owners.of("ses_a")).rejects.toThrow("database busy");
    expect(await owners.of("ses_a")).toBe("user_alice");
    expect(calls()).toBe(2);
  });
});
