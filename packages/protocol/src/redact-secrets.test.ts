import { describe, expect, it } from "vitest";
import { REDACTED, redactSecrets, redactString, redactUrl, urlSecrets } from "./redact-secrets";

describe("redactSecrets", () => {
  it("masks the values it is told are secret wherever they appear, longest first", () => {
    const known = ["s3cr3t-value", "s3cr3t-value-long"];
    expect(redactString("echo s3cr3t-value-long and s3cr3t-value", known)).toBe(`echo ${REDACTED} and ${REDACTED}`);
    expect(redactSecrets({ command: "curl -d s3cr3t-value x", n: 1 }, known)).toEqual({
      command: `curl -d ${REDACTED} x`,
      n: 1,
    });
  });

  it("does not mask known values too short to be secrets", () => {
    expect(redactString("a 1 on", ["1", "on"])).toBe("a 1 on");
  });

  it("masks bearer tokens and Berth tokens in a bash command with nothing known", () => {
    const token = "berth_Zm9vYmFyYmF6cXV4cXV1eHF1dXhxdXV4cXV1eA";
    expect(redactString(`curl -H "Authorization: Bearer ${token}" http://127.0.0.1/api`)).not.toContain(token);
    expect(redactString(`TOK=${token}; echo $TOK`)).toBe(`TOK=${REDACTED}; echo $TOK`);
    expect(redactString("curl -H 'x: Bearer abcdefgh12345678'")).toBe(`curl -H 'x: Bearer ${REDACTED}'`);
  });

  it("turns env objects into their keys and masks values under secret keys", () => {
    expect(redactSecrets({ env: { B: "2", A: "x" }, headers: { Authorization: "Basic eA==" } })).toEqual({
      env: ["A", "B"],
      headers: { Authorization: REDACTED },
    });
  });

  it("takes userinfo out of URLs, and knows it as secrets", () => {
    expect(redactUrl("https://bob:p%40ss@mcp.example.com/mcp?x=1")).toBe(`https://${REDACTED}@mcp.example.com/mcp?x=1`);
    expect(redactUrl("https://mcp.example.com/mcp")).toBe("https://mcp.example.com/mcp");
    expect(urlSecrets("https://bob:p%40ss@h/")).toEqual(["bob", "p%40ss", "p@ss"]);
    expect(urlSecrets("not a url")).toEqual([]);
  });

  it("is idempotent", () => {
    const once = redactSecrets(
      { command: "TOKEN=abc curl -H 'Authorization: Bearer abcdefghij' https://u:p@h/ secret-1" },
      ["secret-1"],
    );
    expect(redactSecrets(once, ["secret-1"])).toEqual(once);
  });

  it("shows env keys with a mask instead of the key list when asked (approval texts), the values gone either way", () => {
    const args = { script: "a.py", env: { API_TOKEN: "tok-123456", MODE: "fast" }, token: "abc" };
    expect(redactSecrets(args)).toEqual({ script: "a.py", env: ["API_TOKEN", "MODE"], token: REDACTED });
    expect(redactSecrets(args, [], { envValueMask: "***" })).toEqual({ script: "a.py", env: { API_TOKEN: "***", MODE: "***" }, token: REDACTED });
  });

  it("masks every secret shape it knows, whatever the case of its marker, while text without one comes back as it was", () => {
    const shapes = [
      "-----BEGIN RSA PRIVATE KEY-----\nMIIEow\n-----END RSA PRIVATE KEY-----",
      "authorization: basic dXNlcjpwYXNz",
      "bearer abcdefgh12345678",
      "berthb_Zm9vYmFyYmF6cXV4cXV1eHF1",
      "ghp_abcdefghijklmnopqrstuvwxyz",
      "github_pat_abcdefghijklmnopqrstuvwxyz",
      "AKIAABCDEFGHIJKLMNOP",
      "xoxb-1234567890-abc",
      "sk-abcdefghijklmnopqrstuvwxyz",
      "eyJhbGciOiJIUzI1.eyJzdWIiOiIx.c2lnbmF0dXJl",
      "https://bob:hunter22@example.com/",
      "--api-key=hunter22",
    ];
    for (const shape of shapes) {
      const redacted = redactString(`run ${shape} now`);
      expect(redacted, shape).toContain(REDACTED);
      expect(redacted, shape).not.toContain(shape);
    }
    for (const plain of ["src/one.txt", "npm test -- --run", "utf8", "ls -la /workspace"]) expect(redactString(plain)).toBe(plain);
    expect(redactSecrets({ path: "one.txt", maxChars: 50000, apiKey: "x", nested: { Password: "y" } })).toEqual({ path: "one.txt", maxChars: 50000, apiKey: REDACTED, nested: { Password: REDACTED } });
  });
});
