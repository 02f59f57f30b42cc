import { webcrypto } from "node:crypto";
import {
  Ledger,
  canonicalJson as serverCanonicalJson,
  createReceiptSigner,
  generateSigningKeyPem,
  verifyReceipt,
  verifyReceiptWithKeys,
} from "@berth/receipts";
import { sampleReceiptInput } from "@berth/receipts/test";
import { describe, expect, it } from "vitest";
import { canonicalJson, verifyReceiptInBrowser, verifyReceiptWithKeyInBrowser } from "./verify-in-browser";

const signer = createReceiptSigner(generateSigningKeyPem());
const other = createReceiptSigner(generateSigningKeyPem());
const ledger = new Ledger({ signer });
const receipt = ledger.seal(sampleReceiptInput({ id: "rcpt_web" }));
const subtle = webcrypto.subtle as SubtleCrypto;
const copy = () => JSON.parse(JSON.stringify(receipt)) as typeof receipt;

describe("canonicalJson", () => {
  it("writes the same bytes as packages/receipts (RFC 8785)", () => {
    const tricky = {
      b: [1, 1e21, 0.1, -0, 'é\u2028"\\'],
      a: { z: null, "\u00e9": true, A: false, e: undefined },
      "10": 1,
      "9": 2,
    };
    expect(canonicalJson(tricky)).toBe(serverCanonicalJson(tricky));
    expect(canonicalJson(receipt.body)).toBe(serverCanonicalJson(receipt.body));
  });
});

describe("verifyReceiptInBrowser", () => {
  it("accepts what the runner's verifier accepts", async () => {
    expect(verifyReceipt(receipt, signer.publicKeyPem)).toEqual({ valid: true });
    expect(await verifyReceiptInBrowser(receipt, signer.publicKeyPem, subtle)).toEqual({
      valid: true,
      keyId: signer.keyId,
    });
  });

  it("names what is wrong with an altered body, signature or key", async () => {
    const altered = copy();
    altered.body.exitCode = 1;
    expect(await verifyReceiptInBrowser(altered, signer.publicKeyPem, subtle)).toMatchObject({
      valid: false,
      reason: expect.stringMatching(/^digest mismatch/),
    });

    const forged = copy();
    forged.signature.value = Buffer.alloc(64, 7).toString("base64");
    expect(await verifyReceiptInBrowser(forged, signer.publicKeyPem, subtle)).toMatchObject({
      valid: false,
      reason: expect.stringMatching(/^signature invalid/),
    });

    expect(await verifyReceiptInBrowser(receipt, other.publicKeyPem, subtle)).toMatchObject({
      valid: false,
      reason: expect.stringMatching(/^key id mismatch/),
    });
    expect(await verifyReceiptInBrowser({ body: {} }, signer.publicKeyPem, subtle)).toMatchObject({
      valid: false,
      reason: expect.stringMatching(/^receipt shape/),
    });
    expect(await verifyReceiptInBrowser(receipt, "not a key", subtle)).toMatchObject({
      valid: false,
      reason: expect.stringMatching(/^public key invalid/),
    });
  });
});

describe("verifyReceiptWithKeyInBrowser", () => {
  // sampleReceiptInput issues the receipt at 2026-11-30T10:00:02.000Z.
  const key = (retiredAt: string | null) => ({ keyId: signer.keyId, runnerId: "runner-a", publicKey: signer.publicKeyPem, createdAt: "2026-11-30T09:00:00.000Z", retiredAt });

  it("accepts a retired key for what it signed before retiring, as the runner does", async () => {
    const retiredLater = key("2026-11-30T11:00:00.000Z");
    expect(verifyReceiptWithKeys(receipt, [retiredLater])).toEqual({ valid: true });
    expect(await verifyReceiptWithKeyInBrowser(receipt, retiredLater, subtle)).toEqual({ valid: true, keyId: signer.keyId });
  });

  it("refuses what a key signed after it was retired, with the runner's reason", async () => {
    const retiredBefore = key("2026-11-30T10:00:01.000Z");
    const server = verifyReceiptWithKeys(receipt, [retiredBefore]);
    expect(server).toMatchObject({ valid: false, reason: expect.stringMatching(/^key retired: /) });
    expect(await verifyReceiptWithKeyInBrowser(receipt, retiredBefore, subtle)).toEqual(server);
  });
});
