import { describe, expect, it } from "vitest";
import { buildReceiptBody } from "./build-receipt-body";
import { sampleReceiptInput } from "./sample-receipt-input";

describe("buildReceiptBody", () => {
  it("masks the run's env values wherever they appear in its args, and keeps only env keys", () => {
    const body = buildReceiptBody(
      sampleReceiptInput({ args: { command: "curl -u me:env-secret-42 http://x", env: { PASSWORD_X: "env-secret-42" } }, env: { PASSWORD_X: "env-secret-42" } }),
      { ledgerId: "l", seq: 0, prevDigest: null },
    );
    expect(JSON.stringify(body)).not.toContain("env-secret-42");
    expect(JSON.stringify(body.args)).toContain("curl -u me:[REDACTED] http://x");
  });
});
