import type { Receipt, ReceiptKey } from "@berth/protocol";
import type { KeyObject } from "node:crypto";
import { toPublicKey } from "./receipt-signer";
import { chainLinkReason, verifyReceipt } from "./verify-receipt";
import type { VerifyReceiptOptions } from "./verify-receipt";
import { verifyReceiptWithKeys } from "./verify-receipt-with-keys";

export type ChainVerification = { valid: true } | { valid: false; reason: string; index: number };

export interface VerifyChainOptions {
  /** The first receipt must start its ledger (seq 0, prevDigest null). */
  genesis?: boolean;
  /** The receipt just before the first one given (a segment of a longer ledger). */
  previous?: unknown;
}

/**
 * Verifies every receipt and that each one links to the one before it (prevDigest, seq, ledger), so a
 * reordered, dropped, inserted or duplicated receipt breaks the chain. The reason names the index.
 * With a key set, each receipt is checked with the key it names, so a chain that crosses a key rotation verifies.
 */
export function verifyChain(
  receipts: readonly unknown[],
  publicKey: string | KeyObject | readonly ReceiptKey[],
  options: VerifyChainOptions = {},
): ChainVerification {
  if (receipts.length === 0) return { valid: false, reason: "chain is empty", index: 0 };
  let verifyOne: (receipt: unknown, options: VerifyReceiptOptions) => ReturnType<typeof verifyReceipt>;
  if (isKeySet(publicKey)) verifyOne = (receipt, opts) => verifyReceiptWithKeys(receipt, publicKey, opts);
  else {
    let key: KeyObject;
    try {
      key = toPublicKey(publicKey);
    } catch (error) {
      return { valid: false, reason: `public key invalid: ${(error as Error).message}`, index: 0 };
    }
    verifyOne = (receipt, opts) => verifyReceipt(receipt, key, opts);
  }
  let previous: Receipt | undefined;
  for (const [index, receipt] of receipts.entries()) {
    const first = index === 0;
    const result = verifyOne(receipt, first && options.previous !== undefined ? { previous: options.previous } : {});
    if (!result.valid) return { valid: false, reason: `receipt[${index}]: ${result.reason}`, index };
    const current = receipt as Receipt; // verified above
    if (first && options.genesis && (current.body.seq !== 0 || current.body.prevDigest !== null)) {
      return {
        valid: false,
        reason: `receipt[0]: chain link broken: seq ${current.body.seq} is not the start of the ledger`,
        index,
      };
    }
    const broken = previous && chainLinkReason(previous, current);
    if (broken) return { valid: false, reason: `receipt[${index}]: ${broken}`, index };
    previous = current;
  }
  return { valid: true };
}

function isKeySet(value: string | KeyObject | readonly ReceiptKey[]): value is readonly ReceiptKey[] {
  return Array.isArray(value);
}
