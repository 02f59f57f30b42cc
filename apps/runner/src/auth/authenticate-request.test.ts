import { describe, expect, it } from "vitest";
import type { TokenAuthenticator } from "./api-tokens";
import { createRequestAuthenticator } from "./authenticate-request";
import type { Principal } from "./tokens";

const alice: Principal = { userId: "u_alice", name: "alice", role: "developer", tokenId: "tok_alice", credential: "token" };

/** Tokens as ApiTokens answers them: `remembered` from memory, `stored` only through a lookup. */
function tokens(remembered: Record<string, Principal>, stored: Record<string, Principal> = {}): TokenAuthenticator & { lookups: string[] } {
  const lookups: string[] = [];
  return {
    lookups,
    cached: (token) => remembered[token],
    authenticate: async (token) => {
      lookups.push(token);
      return remembered[token] ?? stored[token] ?? null;
    },
  };
}

describe("createRequestAuthenticator.fromMemory (the REST hook's answer without a promise)", () => {
  it("answers a remembered token as the lookup would, and a request presenting nothing as anonymous", async () => {
    const known = tokens({ good: alice });
    const authenticate = createRequestAuthenticator(known, undefined);
    expect(authenticate.fromMemory({ authorization: "Bearer good" })).toEqual({ principal: alice, presented: true });
    expect(await authenticate({ authorization: "Bearer good" })).toEqual({ principal: alice, presented: true });
    expect(authenticate.fromMemory({})).toEqual({ principal: null, presented: false });
    expect(authenticate.fromMemory({ authorization: "Basic Zm9vOmJhcg==" })).toEqual({ principal: null, presented: false });
  });

  it("leaves a token it does not remember to the lookup, which alone may refuse or accept it", async () => {
    const known = tokens({}, { stored: alice });
    const authenticate = createRequestAuthenticator(known, undefined);
    expect(authenticate.fromMemory({ authorization: "Bearer stored" })).toBeUndefined();
    expect(authenticate.fromMemory({ authorization: "Bearer wrong" })).toBeUndefined();
    expect(await authenticate({ authorization: "Bearer stored" })).toEqual({ principal: alice, presented: true });
    expect(await authenticate({ authorization: "Bearer wrong" })).toEqual({ principal: null, presented: true });
    expect(known.lookups).toEqual(["stored", "wrong"]);
  });

  it("takes a socket's auth token like the bearer header", () => {
    const authenticate = createRequestAuthenticator(tokens({ good: alice }), undefined);
    expect(authenticate.fromMemory({ socketToken: "good" })).toEqual({ principal: alice, presented: true });
  });
});
