import { webcrypto } from "node:crypto";
import {
  Ledger,
  canonicalJson as serverCanonicalJson,
  createReceiptSigner,
  generateSigningKeyPem,
  verifyReceipt,
} from "@berth/receipts";
import { sampleReceiptInput } from "@berth/receipts/test";
import { describe, expect, it } from "vitest";
import { canonicalJson, verifyReceiptInBrowser } from "./verify-in-browser";

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
