import type { Receipt } from "@berth/protocol";
import { describe, expect, it } from "vitest";
import { seedRuns, seedSessions, useTestRepositories } from "./testing/open-test-repositories";

const t = useTestRepositories(async (repos) => {
  await seedSessions(repos, { ses_a: "user_a" });
  await seedRuns(repos, { run_0: "ses_a", run_1: "ses_a" });
});

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
  it("keeps a chain head per runner's signing keys and reads receipts back by id, run and digest", async () => {
    expect(await t.repos.receipts.ledgerHead([KEY_ID])).toBeNull();
    await t.repos.receipts.store("run_0", receipt(0, "run_0", hex("a"), null));
    await t.repos.receipts.store("run_1", receipt(1, "run_1", hex("b"), hex("a")));
    expect(await t.repos.receipts.ledgerHead([KEY_ID])).toEqual({ seq: 1, digest: hex("b"), ledgerId: "ledger" });
    expect(await t.repos.receipts.ledgerHead(["fedcba9876543210"])).toBeNull();
    // A runner's ledger runs across its keys (a rotation): the head is its newest receipt under any of them.
    expect(await t.repos.receipts.ledgerHead(["fedcba9876543210", KEY_ID])).toEqual({ seq: 1, digest: hex("b"), ledgerId: "ledger" });
    expect(await t.repos.receipts.get("rcpt_1")).toMatchObject({
      runId: "run_1",
      sessionId: "ses_a",
      receipt: { digest: hex("b"), body: { prevDigest: hex("a") } },
    });
    expect((await t.repos.receipts.getByRun("run_0"))?.body.id).toBe("rcpt_0");
    expect((await t.repos.receipts.getByDigest(hex("a")))?.body.seq).toBe(0);
    expect(await t.repos.receipts.getByDigest(hex("c"))).toBeNull();
    expect((await t.repos.runs.get("run_1"))?.receiptId).toBe("rcpt_1");
    // The table's constraints hold on every path: a second receipt for a run, or a second one at a chain position.
    await expect(t.repos.receipts.store("run_1", receipt(2, "run_1", hex("c"), hex("b")))).rejects.toThrow(/unique|constraint/i);
    await expect(t.repos.receipts.store("run_1", { ...receipt(1, "run_1", hex("d"), hex("b")), body: { ...receipt(1, "run_1", hex("d"), hex("b")).body, id: "rcpt_x" } })).rejects.toThrow(/unique|constraint/i);
    expect((await t.repos.receipts.ledgerHead([KEY_ID]))?.seq).toBe(1);
  });

  it("resolves a share link by its token's hash until it is revoked", async () => {
    await t.repos.receipts.createShareLink({ id: "share_1", receiptId: "rcpt_1", tokenHash: hex("1") });
    expect(await t.repos.receipts.resolveShareLink(hex("1"))).toMatchObject({
      runId: "run_1",
      receipt: { body: { id: "rcpt_1" } },
    });
    expect(await t.repos.receipts.resolveShareLink(hex("2"))).toBeNull();
    expect(await t.repos.receipts.revokeShareLinks("rcpt_1")).toBe(1);
    expect(await t.repos.receipts.revokeShareLinks("rcpt_1")).toBe(0);
    expect(await t.repos.receipts.resolveShareLink(hex("1"))).toBeNull();
  });

  it("refuses a stored receipt that no longer matches the protocol's schema, naming the field", async () => {
    await t.db.receipt.update({
      where: { id: "rcpt_0" },
      data: { json: JSON.stringify({ ...receipt(0, "run_0", hex("a"), null), digest: "short" }) },
    });
    await expect(t.repos.receipts.getByRun("run_0")).rejects.toThrow(
      /receipt\.json\.digest: stored JSON does not match/,
    );
  });
});
