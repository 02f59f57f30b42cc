import { describe, expect, it } from "vitest";
import { REDACTED, envKeys, isSecretKey, redactArgs, redactString } from "./redact-args";

describe("redactArgs", () => {
  it("keeps env keys and drops their values", () => {
    expect(redactArgs({ script: "a.py", env: { B: "2", A: "secret-value" } })).toEqual({
      script: "a.py",
      env: ["A", "B"],
    });
    expect(envKeys(["PATH=/bin", "HOME=/root", "PATH=/usr/bin"])).toEqual(["HOME", "PATH"]);
  });

  it("redacts values under secret-looking keys, at any depth", () => {
    const out = redactArgs({
      headers: { Authorization: "Bearer abc", "x-api-key": "k", Cookie: "sid=1" },
      nested: [{ password: "hunter2", githubToken: "t", maxTokens: 500, tokenizer: "bpe" }],
      DB_PASSWORD: 42,
      none: null,
    });
    expect(out).toEqual({
      headers: { Authorization: REDACTED, "x-api-key": REDACTED, Cookie: REDACTED },
      nested: [{ password: REDACTED, githubToken: REDACTED, maxTokens: 500, tokenizer: "bpe" }],
      DB_PASSWORD: REDACTED,
      none: null,
    });
  });

  it.each([
    ["curl -H 'Authorization: Bearer abcdef123456789' x", "curl -H 'Authorization: Bearer [REDACTED]' x"],
    ["GITHUB_TOKEN=ghp_abcdefghijklmnopqrstuvwxyz012345 make", "GITHUB_TOKEN=[REDACTED] make"],
    ["export DB_PASSWORD='p@ss word' && run", "export DB_PASSWORD=[REDACTED] && run"],
    ["deploy --api-key=abc123", "deploy --api-key=[REDACTED]"],
    ["git clone https://bob:s3cret@example.com/r.git", "git clone https://bob:[REDACTED]@example.com/r.git"],
    ["key AKIAABCDEFGHIJKLMNOP here", `key ${REDACTED} here`],
    ["use sk-abcdefghijklmnopqrstuvwxyz please", `use ${REDACTED} please`],
    ["-----BEGIN PRIVATE KEY-----\nMIIB\n-----END PRIVATE KEY-----", REDACTED],
  ])("redacts secrets inside strings: %s", (input, expected) => {
    expect(redactString(input)).toBe(expected);
  });

  it("leaves ordinary text alone", () => {
    const text = "num_tokens=3; print('Basic configuration'); author=me";
    expect(redactString(text)).toBe(text);
  });

  it("is idempotent", () => {
    const once = redactArgs({
      command: "TOKEN=abc curl -H 'Authorization: Bearer abcdefghij' https://u:p@h/",
      env: { A: "1" },
      apiKey: "x",
    });
    expect(redactArgs(once)).toEqual(once);
  });

  it("returns JSON data only", () => {
    expect(redactArgs({ f: () => 1, u: undefined, n: Number.NaN, d: new Date(0), big: 10n })).toEqual({
      n: null,
      d: "1970-01-01T00:00:00.000Z",
      big: "10",
    });
  });

  it("names secret keys", () => {
    for (const key of [
      "password",
      "API_KEY",
      "apiKey",
      "client_secret",
      "GITHUB_TOKEN",
      "authorization",
      "private-key",
    ]) {
      expect(isSecretKey(key), key).toBe(true);
    }
    for (const key of ["maxTokens", "tokenizer", "author", "path", "interpreter", "keyboard"]) {
      expect(isSecretKey(key), key).toBe(false);
    }
  });
});
