import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { createDatabase, createRepositories, type Repositories } from "@berth/db";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { migrate } from "../testing/runner-test-kit";
import { ApiTokens } from "./api-tokens";
import { BrowserSessions } from "./browser-sessions";
import { CredentialRevocation } from "./credential-revocation";
import { LocalInvalidationBus } from "./invalidation-bus";
import { hashToken, newId, newToken } from "./tokens";

// Cached credentials against real SQLite with the real migrations (no Docker): the cache serves repeat
// requests, and a revocation empties it before the revoking call returns.
let dataDir: string;
let repos: Repositories;

beforeAll(async () => {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "berth-credential-cache-"));
  migrate(dataDir);
  repos = createRepositories(await createDatabase({ dataDir }));
}, 60_000);

afterAll(async () => {
  await repos?.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

/** The real repository, counting token lookups: what the cache saves is a lookup not made. */
function countingUsers() {
  const counts = { lookups: 0 };
  const users = {
    findTokenByHash: async (hash: string) => {
      counts.lookups++;
      return repos.users.findTokenByHash(hash);
    },
    touchToken: (id: string) => repos.users.touchToken(id),
  };
  return { users, counts };
}

async function userWithToken(role: "developer" | "viewer" = "developer") {
  const user = await repos.users.create({ id: newId("user"), name: `u-${Math.random().toString(36).slice(2, 8)}`, role });
  const token = newToken();
  const tokenId = newId("tok");
  await repos.users.createToken({ id: tokenId, userId: user.id, name: "test", tokenHash: hashToken(token) });
  return { user, token, tokenId };
}

function wiring() {
  const bus = new LocalInvalidationBus();
  const revocation = new CredentialRevocation(bus);
  const { users, counts } = countingUsers();
  const tokens = new ApiTokens({ users, invalidation: bus });
  const browsers = new BrowserSessions({ repos, ttlMs: 3_600_000, revocation, invalidation: bus });
  return { bus, revocation, tokens, browsers, counts };
}

describe("cached credentials", () => {
  it("serve a repeat request from memory, and a revoked token is refused on the very next call after being cached", async () => {
    const { revocation, tokens, counts } = wiring();
    const { user, token, tokenId } = await userWithToken();
    expect(await tokens.authenticate(token)).toMatchObject({ userId: user.id, tokenId, credential: "token" });
    expect(await tokens.authenticate(token)).toMatchObject({ userId: user.id, tokenId });
    expect(counts.lookups).toBe(1);

    // What DELETE /api/tokens/:id does: the row, then the revocation (users-routes.ts).
    await repos.users.revokeToken(tokenId);
    revocation.disconnectCredential(tokenId);
    expect(await tokens.authenticate(token)).toBeNull();
    expect(counts.lookups).toBe(2);
  });

  it("refuses a cached token at once when its user is disabled or removed", async () => {
    const { revocation, tokens } = wiring();
    const disabled = await userWithToken();
    const removed = await userWithToken();
    expect(await tokens.authenticate(disabled.token)).not.toBeNull();
    expect(await tokens.authenticate(removed.token)).not.toBeNull();

    await repos.users.setDisabled(disabled.user, true);
    revocation.disconnectUser(disabled.user.id);
    await repos.users.softDelete(removed.user);
    revocation.disconnectUser(removed.user.id);
    expect(await tokens.authenticate(disabled.token)).toBeNull();
    expect(await tokens.authenticate(removed.token)).toBeNull();
  });

  it("does not keep a lookup that was in flight while its token was revoked", async () => {
    const bus = new LocalInvalidationBus();
    const revocation = new CredentialRevocation(bus);
    const { token, tokenId } = await userWithToken();
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const tokens = new ApiTokens({
      users: {
        // Reads the row before the revocation, answers after it: the answer is the old, valid row.
        findTokenByHash: async (hash) => {
          const row = await repos.users.findTokenByHash(hash);
          await held;
          return row;
        },
        touchToken: (id) => repos.users.touchToken(id),
      },
      invalidation: bus,
    });
    const inFlight = tokens.authenticate(token);
    await new Promise((resolve) => setTimeout(resolve, 50));
    await repos.users.revokeToken(tokenId);
    revocation.disconnectCredential(tokenId);
    release();
    expect(await inFlight).toMatchObject({ tokenId });
    // The next call asks again and is refused, instead of being served the row read before the revocation.
    expect(await tokens.authenticate(token)).toBeNull();
  });

  it("signs a cached browser out at once: its own sign-out, the token it was minted with revoked, its user disabled", async () => {
    const { tokens, browsers, revocation } = wiring();
    const minted = async (token: string) => {
      const principal = (await tokens.authenticate(token))!;
      const { session, secret } = await browsers.mint(principal, "vitest");
      expect(await browsers.authenticate(secret)).toMatchObject({ tokenId: session.id, credential: "browser" });
      expect(await browsers.authenticate(secret)).toMatchObject({ tokenId: session.id });
      return { session, secret, principal };
    };

    const signedOut = await userWithToken();
    const a = await minted(signedOut.token);
    await browsers.revoke(a.session.id, a.principal);
    expect(await browsers.authenticate(a.secret)).toBeNull();

    const tokenRevoked = await userWithToken();
    const b = await minted(tokenRevoked.token);
    await repos.users.revokeToken(tokenRevoked.tokenId);
    revocation.disconnectCredential(tokenRevoked.tokenId);
    expect(await browsers.authenticate(b.secret)).toBeNull();

    const userDisabled = await userWithToken();
    const c = await minted(userDisabled.token);
    await repos.users.setDisabled(userDisabled.user, true);
    revocation.disconnectUser(userDisabled.user.id);
    expect(await browsers.authenticate(c.secret)).toBeNull();
  });
});
