import { describe, expect, it } from "vitest";
import { useTestRepositories } from "./testing/open-test-repositories";

const t = useTestRepositories();

describe("UserRepository", () => {
  it("ensures a user once, leaving an existing one as it is", async () => {
    await t.repos.users.ensure({ id: "user_admin", name: "admin", role: "admin" });
    await t.repos.users.ensure({ id: "user_admin", name: "renamed", role: "viewer" });
    expect(await t.repos.users.get("user_admin")).toMatchObject({
      name: "admin",
      role: "admin",
      disabledAt: null,
      deletedAt: null,
    });
  });

  it("finds a token by its hash with its user, and an upsert lifts a revocation and replaces the hash", async () => {
    await t.repos.users.upsertToken({ id: "tok_env", userId: "user_admin", name: "env", tokenHash: "h1" });
    expect(await t.repos.users.findTokenByHash("h1")).toMatchObject({
      id: "tok_env",
      revokedAt: null,
      lastUsedAt: null,
      user: { name: "admin" },
    });
    expect(await t.repos.users.revokeToken("tok_env")).toBe(true);
    expect(await t.repos.users.revokeToken("tok_env")).toBe(false);
    expect((await t.repos.users.tokenRevokedAt("tok_env"))?.revokedAt).toBeInstanceOf(Date);
    await t.repos.users.upsertToken({ id: "tok_env", userId: "user_admin", name: "env", tokenHash: "h2" });
    expect(await t.repos.users.findTokenByHash("h1")).toBeNull();
    expect((await t.repos.users.findTokenByHash("h2"))?.revokedAt).toBeNull();
    await t.repos.users.touchToken("tok_env");
    expect((await t.repos.users.findTokenByHash("h2"))?.lastUsedAt).toBeInstanceOf(Date);
    expect(await t.repos.users.tokenRevokedAt("tok_none")).toBeNull();
  });

  it("disables keeping the first time, and a soft delete hides the user and revokes their tokens", async () => {
    const dev = await t.repos.users.create({ id: "user_dev", name: "dev", role: "developer" });
    await t.repos.users.createToken({ id: "tok_dev", userId: dev.id, name: "laptop", tokenHash: "h3" });
    const disabled = await t.repos.users.setDisabled(dev, true);
    expect(disabled.disabledAt).not.toBeNull();
    expect((await t.repos.users.setDisabled(disabled, true)).disabledAt).toBe(disabled.disabledAt);
    expect((await t.repos.users.setDisabled(disabled, false)).disabledAt).toBeNull();
    await t.repos.users.softDelete((await t.repos.users.get("user_dev"))!);
    expect(await t.repos.users.get("user_dev")).toMatchObject({
      deletedAt: expect.any(String),
      disabledAt: expect.any(String),
    });
    expect((await t.repos.users.listLive()).map((u) => u.id)).toEqual(["user_admin"]);
    expect((await t.repos.users.findTokenByHash("h3"))?.revokedAt).toBeInstanceOf(Date);
    expect(await t.repos.users.namesOf(["user_dev", "user_admin", "user_dev"])).toEqual(
      new Map([
        ["user_admin", "admin"],
        ["user_dev", "dev"],
      ]),
    );
  });

  it("lists tokens oldest first with their owner's name and never a hash", async () => {
    const tokens = await t.repos.users.listTokens();
    expect(tokens.map((t) => [t.id, t.userName])).toEqual([
      ["tok_env", "admin"],
      ["tok_dev", "dev"],
    ]);
    expect(JSON.stringify(tokens)).not.toMatch(/"h[123]"/);
  });
});
