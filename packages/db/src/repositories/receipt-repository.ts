import type { Receipt } from "@berth/protocol";
import { ReceiptSchema } from "@berth/protocol";
import { sqliteWriterOf, type Database } from "../create-database";
import { parseJsonColumn } from "./json-column";
import { WriteBehind } from "./write-behind";

const readReceipt = (json: string) => parseJsonColumn(ReceiptSchema, json, "receipt.json");

const INSERT_RECEIPT = `INSERT INTO "Receipt" ("id", "runId", "seq", "digest", "prevDigest", "keyId", "json", "createdAt") VALUES (?, ?, ?, ?, ?, ?, ?, ?)`;

/**
 * Sealed receipts (stored exactly as signed, in one hash chain per runner, across its signing keys) and their share links, of
 * which only the token's hash is stored.
 */
export class ReceiptRepository {
  /** Reads wait for receipts sealed after their runs' replies (WriteBehind). */
  constructor(
    private readonly db: Database,
    private readonly writes = new WriteBehind(),
  ) {}

  /**
   * The newest receipt signed by any of `keyIds` (one runner's keys: its ledger goes on across rotations), with
   * the ledger it belongs to.
   */
  async ledgerHead(keyIds: readonly string[]): Promise<{ seq: number; digest: string; ledgerId: string } | null> {
    await this.writes.settled();
    const last = await this.db.receipt.findFirst({ where: { keyId: { in: [...keyIds] } }, orderBy: { seq: "desc" }, select: { json: true } });
    if (!last) return null;
    const receipt = readReceipt(last.json);
    return { seq: receipt.body.seq, digest: receipt.digest, ledgerId: receipt.body.ledgerId };
  }

  async store(runId: string, receipt: Receipt): Promise<void> {
    const row = { id: receipt.body.id, runId, seq: receipt.body.seq, digest: receipt.digest, prevDigest: receipt.body.prevDigest, keyId: receipt.signature.keyId, json: JSON.stringify(receipt) };
    const writeNow = sqliteWriterOf(this.db);
    // Every run's receipt is stored behind its reply: on SQLite straight to libsql, past Prisma's compiler (as run
    // and tool-call rows go); the table's constraints (one per run, one per chain position) hold either way.
    if (writeNow) writeNow(INSERT_RECEIPT, [row.id, row.runId, row.seq, row.digest, row.prevDigest, row.keyId, row.json, new Date()]);
    else await this.db.receipt.create({ data: row });
  }

  async get(id: string): Promise<{ receipt: Receipt; runId: string; sessionId: string } | null> {
    await this.writes.settled();
    const row = await this.db.receipt.findUnique({ where: { id }, include: { run: { select: { sessionId: true } } } });
    return row ? { receipt: readReceipt(row.json), runId: row.runId, sessionId: row.run.sessionId } : null;
  }

  async getByRun(runId: string): Promise<Receipt | null> {
    await this.writes.settled();
    const row = await this.db.receipt.findUnique({ where: { runId } });
    return row ? readReceipt(row.json) : null;
  }

  async getByDigest(digest: string): Promise<Receipt | null> {
    await this.writes.settled();
    const row = await this.db.receipt.findUnique({ where: { digest } });
    return row ? readReceipt(row.json) : null;
  }

  async createShareLink(link: { id: string; receiptId: string; tokenHash: string }): Promise<void> {
    await this.writes.settled();
    await this.db.shareLink.create({ data: link });
  }

  /** Revokes the receipt's live links; how many were. */
  async revokeShareLinks(receiptId: string): Promise<number> {
    const { count } = await this.db.shareLink.updateMany({ where: { receiptId, revokedAt: null }, data: { revokedAt: new Date() } });
    return count;
  }

  /** The receipt a live share link shows; null for an unknown or revoked link. */
  async resolveShareLink(tokenHash: string): Promise<{ receipt: Receipt; runId: string } | null> {
    await this.writes.settled();
    const link = await this.db.shareLink.findUnique({ where: { tokenHash }, include: { receipt: true } });
    if (!link || link.revokedAt) return null;
    return { receipt: readReceipt(link.receipt.json), runId: link.receipt.runId };
  }
}
