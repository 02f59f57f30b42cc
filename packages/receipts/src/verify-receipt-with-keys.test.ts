import type { ReceiptKey } from "@berth/protocol";
import { describe, expect, it } from "vitest";
import { Ledger } from "./ledger";
import { createReceiptSigner, generateSigningKeyPem } from "./receipt-signer";
import type { ReceiptSigner } from "./receipt-signer";
import { sampleReceiptInput } from "./sample-receipt-input";
import { verifyChain } from "./verify-chain";
import { verifyReceiptWithKeys } from "./verify-receipt-with-keys";

const published = (signer: ReceiptSigner, runnerId: string, retiredAt: string | null = null): ReceiptKey => ({
  keyId: signer.keyId,
  runnerId,
  publicKey: signer.publicKeyPem,
  createdAt: "2026-11-30T09:00:00.000Z",
  retiredAt,
});

const runnerA = createReceiptSigner(generateSigningKeyPem());
const runnerB = createReceiptSigner(generateSigningKeyPem());
const stranger = createReceiptSigner(generateSigningKeyPem());
const at = (time: string) => sampleReceiptInput({ issuedAt: `2026-11-30T${time}.000Z` });

describe("verifyReceiptWithKeys", () => {
  const fromA = new Ledger({ signer: runnerA }).seal(at("10:00:00"));
  const fromB = new Ledger({ signer: runnerB }).seal(at("10:00:00"));

  it("verifies each runner's receipts with the key its signature names", () => {
    const keys = [published(runnerA, "a"), published(runnerB, "b")];
    expect(verifyReceiptWithKeys(fromA, keys)).toEqual({ valid: true });
    expect(verifyReceiptWithKeys(fromB, keys)).toEqual({ valid: true });
  });

  it("refuses a receipt naming a key the deployment does not publish, listing the ones it does", () => {
    const signed = new Ledger({ signer: stranger }).seal(at("10:00:00"));
    expect(verifyReceiptWithKeys(signed, [published(runnerA, "a")])).toEqual({
      valid: false,
      reason: `unknown key: receipt names key ${stranger.keyId}, which this deployment does not publish (published: ${runnerA.keyId})`,
    });
  });

  it("accepts a retired key for what it signed before retiring, and refuses what it signed after", () => {
    const keys = [published(runnerA, "a", "2026-11-30T11:00:00.000Z")];
    expect(verifyReceiptWithKeys(fromA, keys)).toEqual({ valid: true });
    const late = new Ledger({ signer: runnerA }).seal(at("11:00:01"));
    expect(verifyReceiptWithKeys(late, keys)).toEqual({
      valid: false,
      reason: `key retired: key ${runnerA.keyId} of runner a was retired at 2026-11-30T11:00:00.000Z, before the receipt was issued at 2026-11-30T11:00:01.000Z`,
    });
  });

  it("still checks the digest under a published key", () => {
    const tampered = { ...fromA, body: { ...fromA.body, exitCode: 3 } };
    const result = verifyReceiptWithKeys(tampered, [published(runnerA, "a")]);
    expect(result).toMatchObject({ valid: false, reason: expect.stringMatching(/^digest mismatch/) });
  });

  it("names the field of a receipt that is not one before looking for its key", () => {
    expect(verifyReceiptWithKeys({ body: {} }, [])).toMatchObject({ valid: false, reason: expect.stringMatching(/^schema: /) });
  });
});

describe("a ledger across a key rotation", () => {
  const ledger = new Ledger({ signer: runnerA });
  const before = [ledger.seal(at("10:00:00")), ledger.seal(at("10:00:01"))];
  const rotated = createReceiptSigner(generateSigningKeyPem());
  ledger.rotate(rotated);
  const after = [ledger.seal(at("10:00:03")), ledger.seal(at("10:00:04"))];
  const chain = [...before, ...after];
  const keys = [published(runnerA, "a", "2026-11-30T10:00:02.000Z"), published(rotated, "a")];

  it("goes on in the same ledger: next seq, linked to the last receipt the old key signed, signed by the new key", () => {
    expect(after[0]!.body).toMatchObject({ ledgerId: runnerA.keyId, seq: 2, prevDigest: before[1]!.digest });
    expect(after[0]!.signature.keyId).toBe(rotated.keyId);
  });

  it("verifies as one chain with both keys, and not with the old key alone", () => {
    expect(verifyChain(chain, keys, { genesis: true })).toEqual({ valid: true });
    expect(verifyChain(chain, runnerA.publicKeyPem)).toMatchObject({ valid: false, index: 2, reason: expect.stringMatching(/^receipt\[2\]: key id mismatch/) });
    expect(verifyChain(chain, keys.slice(0, 1))).toMatchObject({ valid: false, index: 2, reason: expect.stringMatching(/^receipt\[2\]: unknown key/) });
  });
});
