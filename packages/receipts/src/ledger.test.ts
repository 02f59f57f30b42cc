import { AppError } from "@berth/protocol";
import { describe, expect, it } from "vitest";
import { buildReceiptBody } from "./build-receipt-body";
import { Ledger } from "./ledger";
import { createReceiptSigner, generateSigningKeyPem } from "./receipt-signer";
import { sampleReceiptInput } from "./sample-receipt-input";
import { sealReceipt } from "./seal-receipt";
import { verifyChain } from "./verify-chain";
import { verifyReceipt } from "./verify-receipt";

const signer = createReceiptSigner(generateSigningKeyPem());

describe("Ledger", () => {
  it("starts a ledger at seq 0 and links every next receipt to the last digest", () => {
    const ledger = new Ledger({ signer });
    const first = ledger.seal(sampleReceiptInput());
    const second = ledger.seal(sampleReceiptInput());
    expect(first.body).toMatchObject({ seq: 0, prevDigest: null, ledgerId: signer.keyId });
    expect(second.body).toMatchObject({ seq: 1, prevDigest: first.digest });
    expect(ledger.head).toEqual({ seq: 1, digest: second.digest });
  });

  it("continues from a stored head after a restart", () => {
    const before = new Ledger({ signer, ledgerId: "runner-a" });
    const stored = [before.seal(sampleReceiptInput()), before.seal(sampleReceiptInput())];
    const after = new Ledger({ signer, ledgerId: "runner-a", head: Ledger.headOf(stored[1]!) });
    stored.push(after.seal(sampleReceiptInput()));
    expect(verifyChain(stored, signer.publicKeyPem, { genesis: true })).toEqual({ valid: true });
  });

  it("can move the head back when a receipt could not be stored", () => {
    const ledger = new Ledger({ signer });
    const kept = ledger.seal(sampleReceiptInput());
    ledger.seal(sampleReceiptInput()); // imagine the insert failed
    ledger.reset(Ledger.headOf(kept));
    const next = ledger.seal(sampleReceiptInput());
    expect(verifyChain([kept, next], signer.publicKeyPem)).toEqual({ valid: true });
  });

  it("keeps no secret: env values and secret args never reach the receipt", () => {
    const receipt = new Ledger({ signer }).seal(sampleReceiptInput());
    const text = JSON.stringify(receipt);
    expect(text).not.toMatch(/ghp_|sk-live|fast/);
    expect(receipt.body.envKeys).toEqual(["API_TOKEN", "LANG", "MODE"]);
    expect(receipt.body.args).toMatchObject({ env: ["API_TOKEN", "MODE"], githubToken: "[REDACTED]" });
  });

  it("fills defaults: a fresh id, issuedAt now, duration from the times, nulls for absent values", () => {
    const receipt = new Ledger({ signer }).seal({
      run: { id: "run_9", sessionId: "ses_9", userId: "usr_9", tool: "bash" },
      args: { command: "ls" },
      outcome: "failed",
      timing: { startedAt: new Date("2026-01-01T00:00:00Z"), endedAt: "2026-01-01T00:00:02.5Z" },
    });
    expect(receipt.body).toMatchObject({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      run: { actionClass: null },
      exitCode: null,
      script: null,
      sandbox: null,
      envKeys: [],
      timing: { startedAt: "2026-01-01T00:00:00.000Z", endedAt: "2026-01-01T00:00:02.500Z", durationMs: 2500 },
    });
    expect(Date.parse(receipt.body.issuedAt)).toBeGreaterThan(Date.parse("2026-01-01"));
    expect(verifyReceipt(receipt, signer.publicKeyPem)).toEqual({ valid: true });
  });

  it("refuses a bad input by field name and does not move the head", () => {
    const ledger = new Ledger({ signer });
    const bad = sampleReceiptInput({ outcome: "exploded" as never, logs: [{ name: "stdout", sha256: "x", bytes: 1 }] });
    expect(() => ledger.seal(bad)).toThrow(/receipt body invalid: schema: outcome: .*logs\[0\]\.sha256/);
    expect(ledger.head).toBeNull();
  });
});

describe("sealReceipt", () => {
  const position = { ledgerId: "l", seq: 0, prevDigest: null };

  it("refuses args that were not redacted", () => {
    const body = { ...buildReceiptBody(sampleReceiptInput(), position), args: { password: "hunter2" } };
    let error: unknown;
    try {
      sealReceipt(body, signer);
    } catch (caught) {
      error = caught;
    }
    expect(AppError.isInstance(error) && error.code).toBe("internal");
    expect((error as Error).message).toMatch(/args are not redacted/);
  });

  it("refuses a prevDigest at seq 0 and a missing one after it", () => {
    expect(() => buildReceiptBody(sampleReceiptInput(), { ...position, prevDigest: "a".repeat(64) })).toThrow(
      /prevDigest: must be null at seq 0/,
    );
    expect(() => buildReceiptBody(sampleReceiptInput(), { ...position, seq: 3 })).toThrow(/prevDigest/);
  });
});
