import { ReceiptSchema } from "@berth/protocol";
import type { Receipt } from "@berth/protocol";
import { verify } from "node:crypto";
import type { KeyObject } from "node:crypto";
import { keyIdOf, toPublicKey } from "./receipt-signer";
import { schemaReason } from "./schema-reason";
import { receiptDigest, signingMessage } from "./seal-receipt";

/** Assignable to the wire VerifyResult `{valid, reason?}`; an invalid result always says why. */
export type ReceiptVerification = { valid: true } | { valid: false; reason: string };

export interface VerifyReceiptOptions {
  /** The receipt just before this one in its ledger: checks ledger, seq and prevDigest. */
  previous?: unknown;
  /** The digest this receipt must point back to (null for the first receipt of a ledger). */
  prevDigest?: string | null;
}

/**
 * Checks, in order: shape (naming the field), key id, digest over the canonical body, Ed25519 signature,
 * then the chain link when `previous`/`prevDigest` is given. The first failure is the reason.
 */
export function verifyReceipt(
  receipt: unknown,
  publicKey: string | KeyObject,
  options: VerifyReceiptOptions = {},
): ReceiptVerification {
  const parsed = ReceiptSchema.safeParse(receipt);
  if (!parsed.success) return invalid(schemaReason(parsed.error.issues));
  const { body, digest, signature } = parsed.data;

  let key: KeyObject;
  let keyId: string;
  try {
    key = toPublicKey(publicKey);
    keyId = keyIdOf(key);
  } catch (error) {
    return invalid(`public key invalid: ${(error as Error).message}`);
  }
  if (signature.keyId !== keyId) {
    return invalid(`key id mismatch: receipt names key ${signature.keyId}, the verifying key is ${keyId}`);
  }

  // Hash the body exactly as received, so a field the schema let through is still covered.
  const actual = receiptDigest((receipt as { body: unknown }).body);
  if (actual !== digest) return invalid(`digest mismatch: body hashes to ${actual}, receipt says ${digest}`);

  if (!verify(null, signingMessage(digest), key, Buffer.from(signature.value, "base64"))) {
    return invalid(`signature invalid: not made by key ${keyId} over digest ${digest}`);
  }

  if (options.previous !== undefined) {
    const previous = ReceiptSchema.safeParse(options.previous);
    if (!previous.success) return invalid(`previous receipt: ${schemaReason(previous.error.issues)}`);
    const broken = chainLinkReason(previous.data, parsed.data);
    if (broken) return invalid(broken);
  }
  if (options.prevDigest !== undefined && body.prevDigest !== options.prevDigest) {
    return invalid(`chain link broken: prevDigest ${body.prevDigest} is not the expected ${options.prevDigest}`);
  }
  return { valid: true };
}

/** Why `next` does not directly follow `previous` in one ledger, or undefined when it does. */
export function chainLinkReason(previous: Receipt, next: Receipt): string | undefined {
  if (next.body.prevDigest !== previous.digest) {
    return `chain link broken: prevDigest ${next.body.prevDigest} is not the previous receipt's digest ${previous.digest}`;
  }
  if (next.body.seq !== previous.body.seq + 1) {
    return `chain link broken: seq ${next.body.seq} does not follow seq ${previous.body.seq}`;
  }
  if (next.body.ledgerId !== previous.body.ledgerId) {
    return `chain link broken: ledger ${next.body.ledgerId} does not continue ledger ${previous.body.ledgerId}`;
  }
  return undefined;
}

function invalid(reason: string): ReceiptVerification {
  return { valid: false, reason };
}
