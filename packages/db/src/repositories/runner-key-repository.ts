import { AppError, type ReceiptKey } from "@berth/protocol";
import type { Database } from "../create-database";
import type { RunnerKeyModel } from "../generated/sqlite/models";

function toKey(row: RunnerKeyModel): ReceiptKey {
  return {
    keyId: row.keyId,
    runnerId: row.runnerId,
    publicKey: row.publicKey,
    createdAt: row.createdAt.toISOString(),
    retiredAt: row.retiredAt ? row.retiredAt.toISOString() : null,
  };
}

/**
 * Every runner's receipt signing key (public half only), so any runner and any verifier can check what any runner
 * signed. A runner signs with one key at a time: publishing a key retires the runner's others.
 */
export class RunnerKeyRepository {
  constructor(private readonly db: Database) {}

  /**
   * Makes `key` its runner's current key: adds it (a key published before keeps its row and createdAt) and
   * retires every other key of the runner still current, at `now`, in one transaction. Returns the key's row.
   * A retired key is refused: it never signs again.
   */
  async publish(key: { keyId: string; runnerId: string; publicKey: string }, now = new Date()): Promise<ReceiptKey> {
    const known = await this.get(key.keyId);
    if (known?.retiredAt) {
      throw new AppError({ code: "internal", message: `receipt key ${key.keyId} was retired at ${known.retiredAt}: a retired key never signs again` });
    }
    const [row] = await this.db.$transaction([
      this.db.runnerKey.upsert({ where: { keyId: key.keyId }, create: { ...key, createdAt: now }, update: {} }),
      this.db.runnerKey.updateMany({
        where: { runnerId: key.runnerId, retiredAt: null, keyId: { not: key.keyId } },
        data: { retiredAt: now },
      }),
    ]);
    return toKey(row);
  }

  /** Every published key, oldest first: what `GET /api/receipts/keys` serves. */
  async list(): Promise<ReceiptKey[]> {
    return (await this.db.runnerKey.findMany({ orderBy: [{ createdAt: "asc" }, { keyId: "asc" }] })).map(toKey);
  }

  /** The keys one runner has signed with, oldest first (its ledger runs across them). */
  async ofRunner(runnerId: string): Promise<ReceiptKey[]> {
    const rows = await this.db.runnerKey.findMany({ where: { runnerId }, orderBy: [{ createdAt: "asc" }, { keyId: "asc" }] });
    return rows.map(toKey);
  }

  async get(keyId: string): Promise<ReceiptKey | null> {
    const row = await this.db.runnerKey.findUnique({ where: { keyId } });
    return row ? toKey(row) : null;
  }
}
