import { ReceiptSchema } from "@berth/protocol";
import type { ReceiptKey } from "@berth/protocol";
import { schemaReason } from "./schema-reason";
import { verifyReceipt } from "./verify-receipt";
import type { ReceiptVerification, VerifyReceiptOptions } from "./verify-receipt";

/** The published key a receipt names, or why none may verify it. */
export type KeyLookup = { key: ReceiptKey } | { reason: string };

/**
 * Which of the deployment's keys may verify `receipt`: the one its signature names, unless that key was
 * retired before the receipt was issued (a retired key verifies only what it signed while it was current).
 */
export function keyForReceipt(receipt: { body: { issuedAt: string }; signature: { keyId: string } }, keys: readonly ReceiptKey[]): KeyLookup {
  const { keyId } = receipt.signature;
  const key = keys.find((k) => k.keyId === keyId);
  if (!key) {
    const published = keys.map((k) => k.keyId).join(", ") || "none";
    return { reason: `unknown key: receipt names key ${keyId}, which this deployment does not publish (published: ${published})` };
  }
  if (key.retiredAt && Date.parse(key.retiredAt) < Date.parse(receipt.body.issuedAt)) {
    return {
      reason: `key retired: key ${keyId} of runner ${key.runnerId} was retired at ${key.retiredAt}, before the receipt was issued at ${receipt.body.issuedAt}`,
    };
  }
  return { key };
}

/**
 * verifyReceipt against a deployment's key set (`GET /api/receipts/keys`): shape first, then the key the
 * signature names (unknown or retired before `issuedAt` is invalid), then digest, signature and chain link.
 */
export function verifyReceiptWithKeys(
  receipt: unknown,
  keys: readonly ReceiptKey[],
  options: VerifyReceiptOptions = {},
): ReceiptVerification {
  const parsed = ReceiptSchema.safeParse(receipt);
  if (!parsed.success) return { valid: false, reason: schemaReason(parsed.error.issues) };
  const found = keyForReceipt(parsed.data, keys);
  if ("reason" in found) return { valid: false, reason: found.reason };
  return verifyReceipt(receipt, found.key.publicKey, options);
}
