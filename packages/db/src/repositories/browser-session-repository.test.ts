import { describe, expect, it } from "vitest";
import { useTestRepositories } from "./testing/open-test-repositories";

const t = useTestRepositories();

describe("BrowserSessionRepository", () => {
  it("finds a sign-in by its secret's hash, lists newest first per user, and revokes it", async () => {
    const expiresAt = new Date(Date.now() + 60_000);
    const first = await t.repos.browserSessions.create({
      id: "bs_1",
      userId: "user_a",
      tokenId: "tok_a",
      secretHash: "s1",
      userAgent: "firefox",
      expiresAt,
    });
    expect(first).toMatchObject({
      id: "bs_1",
      tokenId: "tok_a",
      userAgent: "firefox",
      revokedAt: null,
      lastUsedAt: null,
    });
    expect(Object.keys(first)).not.toContain("secretHash");
    await new Promise((resolve) => setTimeout(resolve, 5));
    await t.repos.browserSessions.create({
      id: "bs_2",
      userId: "user_a",
      tokenId: "tok_a",
      secretHash: "s2",
      userAgent: "chrome",
      expiresAt,
    });
    await t.repos.browserSessions.create({
      id: "bs_3",
      userId: "user_b",
      tokenId: "tok_b",
      secretHash: "s3",
      userAgent: "",
      expiresAt,
    });
    expect((await t.repos.browserSessions.findBySecretHash("s2"))?.id).toBe("bs_2");
    expect(await t.repos.browserSessions.findBySecretHash("nope")).toBeNull();
    expect((await t.repos.browserSessions.list({ userId: "user_a", limit: 10 })).map((s) => s.id)).toEqual([
      "bs_2",
      "bs_1",
    ]);
    expect(await t.repos.browserSessions.list({ limit: 1 })).toHaveLength(1);
    await t.repos.browserSessions.touch("bs_1");
    expect((await t.repos.browserSessions.get("bs_1"))?.lastUsedAt).toBeInstanceOf(Date);
    expect((await t.repos.browserSessions.revoke("bs_1")).revokedAt).toBeInstanceOf(Date);
  });
});
