import type { Receipt } from "@berth/protocol";
import { buildReceiptBody } from "./build-receipt-body";
import type { ReceiptInput } from "./build-receipt-body";
import type { ReceiptSigner } from "./receipt-signer";
import { sealReceipt } from "./seal-receipt";

/** The end of a ledger: the last sealed receipt's seq and digest. */
export interface LedgerHead {
  seq: number;
  digest: string;
}

export interface LedgerOptions {
  signer: ReceiptSigner;
  /** Names this runner's chain; defaults to the signer's key id (the runner's first key: it stays across rotations). */
  ledgerId?: string;
  /** The last receipt already stored for this ledger; null or absent for a new ledger. */
  head?: LedgerHead | null;
}

/**
 * Seals receipts one after another into a hash chain. Pure: it stores nothing. The runner loads the head
 * from its store at start, persists every receipt `seal` returns, and, if persisting fails, calls
 * `reset` with the stored head so the next receipt does not point at one that was never kept.
 */
export class Ledger {
  readonly ledgerId: string;
  #signer: ReceiptSigner;
  #head: LedgerHead | null;

  constructor(options: LedgerOptions) {
    this.#signer = options.signer;
    this.ledgerId = options.ledgerId ?? options.signer.keyId;
    this.#head = options.head ?? null;
  }

  get head(): LedgerHead | null {
    return this.#head;
  }

  /** Seals the next receipt (synchronous, so concurrent runs in one process cannot interleave). */
  seal(input: ReceiptInput): Receipt {
    const head = this.#head;
    const body = buildReceiptBody(input, {
      ledgerId: this.ledgerId,
      seq: head ? head.seq + 1 : 0,
      prevDigest: head ? head.digest : null,
    });
    const receipt = sealReceipt(body, this.#signer);
    this.#head = { seq: receipt.body.seq, digest: receipt.digest };
    return receipt;
  }

  get signer(): ReceiptSigner {
    return this.#signer;
  }

  /**
   * Signs with `signer` from the next receipt on (a key rotation). The chain goes on: same ledger, next seq,
   * prevDigest the last receipt the old key signed, so the chain verifies across the rotation with both keys.
   */
  rotate(signer: ReceiptSigner): void {
    this.#signer = signer;
  }

  /** Moves the head back (or forward) to what the store holds. */
  reset(head: LedgerHead | null): void {
    this.#head = head;
  }

  /** The head a stored receipt leaves behind. */
  static headOf(receipt: Receipt): LedgerHead {
    return { seq: receipt.body.seq, digest: receipt.digest };
  }
}
