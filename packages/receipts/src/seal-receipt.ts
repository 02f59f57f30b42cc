import { AppError, RECEIPT_SIGNING_PREFIX, ReceiptBodySchema } from "@berth/protocol";
import type { Receipt, ReceiptBody } from "@berth/protocol";
import { canonicalJson } from "./canonical-json";
import { redactArgs } from "./redact-args";
import type { ReceiptSigner } from "./receipt-signer";
import { schemaReason } from "./schema-reason";
import { sha256Hex } from "./sha256-hex";

/** sha256 hex of the RFC 8785 canonical JSON of the body: the receipt's identity in the chain. */
export function receiptDigest(body: unknown): string {
  return sha256Hex(canonicalJson(body));
}

/**
 * The exact bytes the runner key signs: ASCII `berth-receipt-v1:<digest hex>`. Signing the digest keeps
 * the signed message small and fixed; the prefix keeps a receipt signature from meaning anything else.
 * Offline check: `printf 'berth-receipt-v1:%s' "$digest" > msg; openssl pkeyutl -verify -pubin
 * -inkey pub.pem -rawin -in msg -sigfile sig.bin` (sig.bin = base64-decoded signature.value).
 */
export function signingMessage(digest: string): Buffer {
  return Buffer.from(RECEIPT_SIGNING_PREFIX + digest, "ascii");
}

/**
 * Seals a complete body: validates it, checks its args are redacted, hashes and signs. Throws
 * AppError(internal) when the body is invalid — a runner bug, never a client's fault.
 */
export function sealReceipt(body: ReceiptBody, signer: ReceiptSigner): Receipt {
  const parsed = ReceiptBodySchema.safeParse(body);
  if (!parsed.success) {
    throw new AppError({ code: "internal", message: `receipt body invalid: ${schemaReason(parsed.error.issues)}` });
  }
  // Last line of defence for "no secret in a receipt": args must already be in redacted form.
  if (canonicalJson(redactArgs(parsed.data.args)) !== canonicalJson(parsed.data.args)) {
    throw new AppError({ code: "internal", message: "receipt args are not redacted: build the body with redactArgs" });
  }
  const digest = receiptDigest(parsed.data);
  return {
    body: parsed.data,
    digest,
    signature: { alg: "Ed25519", keyId: signer.keyId, value: signer.sign(signingMessage(digest)).toString("base64") },
  };
}
