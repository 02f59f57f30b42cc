import type { Receipt } from "@berth/protocol";
import { describe, expect, it } from "vitest";
import { Ledger } from "./ledger";
import { createReceiptSigner, generateSigningKeyPem } from "./receipt-signer";
import { sampleReceiptInput } from "./sample-receipt-input";
import { verifyChain } from "./verify-chain";

const signer = createReceiptSigner(generateSigningKeyPem());
const ledger = new Ledger({ signer });
const chain = Array.from({ length: 5 }, (_, i) => ledger.seal(sampleReceiptInput({ id: `rcpt_${i}` })));
const [r0, r1, r2, r3, r4] = chain as [Receipt, Receipt, Receipt, Receipt, Receipt];

describe("verifyChain", () => {
  it("accepts a ledger in order, from its start or as a segment", () => {
    expect(verifyChain(chain, signer.publicKeyPem, { genesis: true })).toEqual({ valid: true });
    expect(verifyChain([r2, r3, r4], signer.publicKeyPem)).toEqual({ valid: true });
    expect(verifyChain([r2, r3], signer.publicKeyPem, { previous: r1 })).toEqual({ valid: true });
  });

  it("fails when two receipts swap places", () => {
    expect(verifyChain([r0, r2, r1, r3, r4], signer.publicKeyPem)).toEqual({
      valid: false,
      index: 1,
      reason: `receipt[1]: chain link broken: prevDigest ${r1.digest} is not the previous receipt's digest ${r0.digest}`,
    });
  });

  it("fails when the chain is reversed", () => {
    const result = verifyChain([...chain].reverse(), signer.publicKeyPem);
    expect(result).toMatchObject({ valid: false, index: 1 });
  });

  it("fails when a receipt is dropped, duplicated or inserted", () => {
    expect(verifyChain([r0, r1, r3, r4], signer.publicKeyPem)).toMatchObject({
      valid: false,
      index: 2,
      reason: expect.stringMatching(/^receipt\[2\]: chain link broken: prevDigest/),
    });
    expect(verifyChain([r0, r1, r1, r2], signer.publicKeyPem)).toMatchObject({ valid: false, index: 2 });
    const stranger = new Ledger({ signer }).seal(sampleReceiptInput());
    expect(verifyChain([r0, stranger, r1], signer.publicKeyPem)).toMatchObject({ valid: false, index: 1 });
  });

  it("fails a segment that does not continue the given previous receipt", () => {
    expect(verifyChain([r3, r4], signer.publicKeyPem, { previous: r1 })).toMatchObject({ valid: false, index: 0 });
  });

  it("fails when genesis is required and the first receipt is not seq 0", () => {
    expect(verifyChain([r1, r2], signer.publicKeyPem, { genesis: true })).toEqual({
      valid: false,
      index: 0,
      reason: "receipt[0]: chain link broken: seq 1 is not the start of the ledger",
    });
  });

  it("names the receipt that fails its own checks", () => {
    const tampered = JSON.parse(JSON.stringify(r3)) as typeof r3;
    tampered.body.exitCode = 7;
    expect(verifyChain([r0, r1, r2, tampered, r4], signer.publicKeyPem)).toMatchObject({
      valid: false,
      index: 3,
      reason: expect.stringMatching(/^receipt\[3\]: digest mismatch/),
    });
  });

  it("fails under another runner's key", () => {
    const other = createReceiptSigner(generateSigningKeyPem());
    expect(verifyChain(chain, other.publicKeyPem)).toMatchObject({
      valid: false,
      index: 0,
      reason: expect.stringMatching(/^receipt\[0\]: key id mismatch/),
    });
  });

  it("refuses an empty chain", () => {
    expect(verifyChain([], signer.publicKeyPem)).toEqual({ valid: false, index: 0, reason: "chain is empty" });
  });
});
