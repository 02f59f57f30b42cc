import type { Receipt } from "@berth/protocol";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Database } from "../create-database";
import type { Repositories } from "./create-repositories";
import { openTestRepositories } from "./testing/open-test-repositories";

let repos: Repositories;
let db: Database;
let close: () => Promise<void>;

beforeAll(async () => {
  ({ repos, db, close } = await openTestRepositories());
  await repos.users.create({ id: "user_a", name: "ada", role: "developer" });
  await repos.sessions.create({ id: "ses_a", name: "a", ownerId: "user_a", autonomy: "default", network: "none", env: {} });
  for (const id of ["run_0", "run_1"]) await repos.runs.create({ id, sessionId: "ses_a", userId: "user_a", tool: "bash", kind: "bash", args: {}, secrets: [], caller: null, startedAt: new Date() });
}, 60_000);
afterAll(() => close());

const hex = (c: string) => c.repeat(64);
const KEY_ID = "0123456789abcdef";

/** A receipt that passes ReceiptSchema (its signature is not checked here: that is @berth/receipts' job). */
function receipt(seq: number, runId: string, digest: string, prevDigest: string | null): Receipt {
  const at = "2026-01-01T00:00:00.000Z";
  return {
    body: {
      v: 1,
      id: `rcpt_${seq}`,
      ledgerId: "ledger",
      seq,
      prevDigest,
      issuedAt: at,
      run: { id: runId, sessionId: "ses_a", userId: "user_a", tool: "bash", actionClass: "execute" },
      args: { command: "ls" },
      envKeys: [],
      script: null,
      inputs: [],
      outputs: [],
      outcome: "succeeded",
      exitCode: 0,
      timing: { startedAt: at, endedAt: at, durationMs: 0, approvalWaitMs: null },
      logs: [{ name: "stdout", sha256: hex("e"), bytes: 0 }],
      sandbox: null,
      approvals: [],
    },
    digest,
    signature: { alg: "Ed25519", keyId: KEY_ID, value: `${"A".repeat(86)}==` },
  };
}

describe("ReceiptRepository", () => {
  it("keeps a chain head per signing key and reads receipts back by id, run and digest", async () => {
    expect(await repos.receipts.chainHead(KEY_ID)).toBeNull();
    await repos.receipts.store("run_0", receipt(0, "run_0", hex("a"), null));
    await repos.receipts.store("run_1", receipt(1, "run_1", hex("b"), hex("a")));
    expect(await repos.receipts.chainHead(KEY_ID)).toEqual({ seq: 1, digest: hex("b") });
    expect(await repos.receipts.chainHead("fedcba9876543210")).toBeNull();
    expect(await repos.receipts.get("rcpt_1")).toMatchObject({ runId: "run_1", sessionId: "ses_a", receipt: { digest: hex("b"), body: { prevDigest: hex("a") } } });
    expect((await repos.receipts.getByRun("run_0"))?.body.id).toBe("rcpt_0");
    expect((await repos.receipts.getByDigest(hex("a")))?.body.seq).toBe(0);
    expect(await repos.receipts.getByDigest(hex("c"))).toBeNull();
    expect((await repos.runs.get("run_1"))?.receiptId).toBe("rcpt_1");
  });

  it("resolves a share link by its token's hash until it is revoked", async () => {
    await repos.receipts.createShareLink({ id: "share_1", receiptId: "rcpt_1", tokenHash: hex("1") });
    expect(await repos.receipts.resolveShareLink(hex("1"))).toMatchObject({ runId: "run_1", receipt: { body: { id: "rcpt_1" } } });
    expect(await repos.receipts.resolveShareLink(hex("2"))).toBeNull();
    expect(await repos.receipts.revokeShareLinks("rcpt_1")).toBe(1);
    expect(await repos.receipts.revokeShareLinks("rcpt_1")).toBe(0);
    expect(await repos.receipts.resolveShareLink(hex("1"))).toBeNull();
  });

  it("refuses a stored receipt that no longer matches the protocol's schema, naming the field", async () => {
    await db.receipt.update({ where: { id: "rcpt_0" }, data: { json: JSON.stringify({ ...receipt(0, "run_0", hex("a"), null), digest: "short" }) } });
    await expect(repos.receipts.getByRun("run_0")).rejects.toThrow(/receipt\.json\.digest: stored JSON does not match/);
  });
});
