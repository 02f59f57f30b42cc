import fs from "node:fs";
import path from "node:path";
import type { Repositories } from "@berth/db";
import type { Receipt } from "@berth/protocol";
import { createReceiptSigner, generateSigningKeyPem, Ledger, SIGNING_KEY_FILE } from "@berth/receipts";
import { sampleReceiptInput } from "@berth/receipts/test";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openTestRepos } from "../testing/open-test-repos";
import { ReceiptService, type SealRunInput } from "./receipt-service";

// Two runners on one database (PostgreSQL scale-out) each keep their own hash chain, under their own key.
// Real SQLite with the real migrations, or PostgreSQL with BERTH_TEST_POSTGRES_URL set (where a run's row and its
// receipt, both written behind the reply, take different pooled connections); no Docker.
let dataDir: string;
let repos: Repositories;
let close = async () => undefined as void;

beforeAll(async () => {
  ({ dataDir, repos, close } = await openTestRepos("berth-ledgers-"));
  await repos.users.create({ id: "user_a", name: "a", role: "developer" });
  await repos.sessions.create({ id: "ses_a", name: "ledgers", ownerId: "user_a", autonomy: "default", network: "none", env: {} });
}, 60_000);

afterAll(() => close());

/** A runner's receipts as it opens them at start: its own data dir and runner id, one shared database. */
const openReceipts = (runnerId: string) =>
  ReceiptService.open({ receipts: repos.receipts, runnerKeys: repos.runnerKeys, runnerId, dataDir: path.join(dataDir, runnerId), sandboxFacts: () => null, writes: repos.writes });

const EMPTY_SHA256 = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";

/** What a `bash true` run's end hands the receipt service. */
const bashTrueSeal = (runId: string, startedAt: Date): SealRunInput => ({
  run: { id: runId, sessionId: "ses_a", userId: "user_a", tool: "bash", actionClass: "execute" },
  args: { action: "exec", command: "true" },
  env: {},
  details: {},
  outcome: "succeeded",
  exitCode: 0,
  startedAt,
  endedAt: new Date(),
  durationMs: 1,
  logs: ["stdout", "stderr"].map((name) => ({ name, bytes: 0, sha256: EMPTY_SHA256 })),
  approvals: [],
  approvalWaitMs: null,
});

async function sealOne(receipts: ReceiptService, runId: string): Promise<{ seq: number; keyId: string; prevDigest: string | null; receipt: Receipt }> {
  const startedAt = new Date();
  await repos.runs.create({ id: runId, sessionId: "ses_a", userId: "user_a", tool: "bash", kind: "bash", args: {}, secrets: [], caller: null, startedAt });
  const id = await receipts.sealRun(bashTrueSeal(runId, startedAt));
  const { receipt } = (await repos.receipts.get(id))!;
  return { seq: receipt.body.seq, keyId: receipt.signature.keyId, prevDigest: receipt.body.prevDigest, receipt };
}

describe("receipt ledgers on a shared database", () => {
  it("numbers each runner's receipts from 0 in its own chain, and a reopened runner continues its own", async () => {
    const first = await openReceipts("runner-a");
    const second = await openReceipts("runner-b");
    const a1 = await sealOne(first, "run_a1");
    const b1 = await sealOne(second, "run_b1");
    const a2 = await sealOne(first, "run_a2");
    expect(a1.keyId).not.toBe(b1.keyId);
    expect([a1.seq, b1.seq, a2.seq]).toEqual([0, 0, 1]);
    expect([a1.prevDigest, b1.prevDigest]).toEqual([null, null]);

    const secondAgain = await openReceipts("runner-b");
    const b2 = await sealOne(secondAgain, "run_b2");
    expect(b2).toMatchObject({ keyId: b1.keyId, seq: 1 });
    expect(b2.prevDigest).toBe((await repos.receipts.getByRun("run_b1"))?.digest);
  });

  it("verifies on any runner what another runner sealed, and refuses a key nobody published", async () => {
    const a = await openReceipts("runner-c");
    const b = await openReceipts("runner-d");
    const { receipt } = await sealOne(a, "run_c1");
    expect(await b.verify(receipt)).toEqual({ valid: true });
    expect((await b.keys()).map((k) => k.runnerId)).toEqual(expect.arrayContaining(["runner-c", "runner-d"]));

    const stranger = createReceiptSigner(generateSigningKeyPem());
    const forged = new Ledger({ signer: stranger }).seal(sampleReceiptInput());
    expect(await b.verify(forged)).toEqual({
      valid: false,
      reason: expect.stringMatching(new RegExp(`^unknown key: receipt names key ${stranger.keyId}, which this deployment does not publish`)),
    });
  });

  it("rotates a runner's key: the old key is retired but verifies what it signed, the chain goes on under the new key", async () => {
    const runner = await openReceipts("runner-e");
    const before = await sealOne(runner, "run_e1");
    const oldSigner = createReceiptSigner(fs.readFileSync(path.join(dataDir, "runner-e", SIGNING_KEY_FILE), "utf8"));
    const { key, retired } = await runner.rotateKey();
    expect(retired).toMatchObject({ keyId: before.keyId, runnerId: "runner-e", retiredAt: expect.any(String) });
    expect(key).toMatchObject({ runnerId: "runner-e", retiredAt: null });
    expect(runner.publicKey().keyId).toBe(key.keyId);

    const after = await sealOne(runner, "run_e2");
    expect(after).toMatchObject({ keyId: key.keyId, seq: before.seq + 1, prevDigest: before.receipt.digest });
    expect(after.receipt.body.ledgerId).toBe(before.receipt.body.ledgerId);
    const elsewhere = await openReceipts("runner-f");
    expect(await elsewhere.verify(before.receipt)).toEqual({ valid: true });
    expect(await elsewhere.verify(after.receipt)).toEqual({ valid: true });

    // What the old key would sign now (a stolen key, or a runner that kept it) is issued after its retirement.
    const late = new Ledger({ signer: oldSigner }).seal(sampleReceiptInput({ issuedAt: new Date(Date.now() + 1000) }));
    expect(await elsewhere.verify(late)).toEqual({ valid: false, reason: expect.stringMatching(/^key retired: key [0-9a-f]{16} of runner runner-e was retired at /) });

    // A restart goes on with the new key and the same chain.
    const restarted = await openReceipts("runner-e");
    expect(await sealOne(restarted, "run_e3")).toMatchObject({ keyId: key.keyId, seq: after.seq + 1, prevDigest: after.receipt.digest });
  });

  it("never signs again with a retired key found in a restored data dir", async () => {
    const runner = await openReceipts("runner-g");
    const keyFile = path.join(dataDir, "runner-g", SIGNING_KEY_FILE);
    const backup = fs.readFileSync(keyFile, "utf8");
    const first = await sealOne(runner, "run_g1");
    await runner.rotateKey();
    fs.writeFileSync(keyFile, backup, { mode: 0o600 });
    const restored = await openReceipts("runner-g");
    const next = await sealOne(restored, "run_g2");
    expect(next.keyId).not.toBe(first.keyId);
    expect(await restored.verify(next.receipt)).toEqual({ valid: true });
    expect((await repos.runnerKeys.ofRunner("runner-g")).filter((k) => !k.retiredAt).map((k) => k.keyId)).toEqual([next.keyId]);
  });

  it("refuses to start on a key another runner id published, saying how to rename a runner", async () => {
    await openReceipts("runner-h");
    const renamed = ReceiptService.open({ receipts: repos.receipts, runnerKeys: repos.runnerKeys, runnerId: "runner-i", dataDir: path.join(dataDir, "runner-h"), sandboxFacts: () => null, writes: repos.writes });
    await expect(renamed).rejects.toThrow(/is published for runner runner-h, not runner-i \(BERTH_RUNNER_ID\): each runner needs a data dir of its own; to rename a runner, move its receipt-signing-key.pem aside/);
  });

  it("stores a receipt sealed behind the reply only once its run's row is written, however late that write is", async () => {
    const receipts = await openReceipts("runner-j");
    const startedAt = new Date();
    let writeRun!: () => void;
    // The run's row written behind the reply too (as RunService does), held back here until after the seal has had
    // every chance to run.
    const held = new Promise<void>((resolve) => (writeRun = resolve));
    void repos.writes.later(
      () => held.then(() => repos.runs.create({ id: "run_j1", sessionId: "ses_a", userId: "user_a", tool: "bash", kind: "bash", args: {}, secrets: [], caller: null, startedAt })),
      { after: "run_j1" },
    );
    const id = receipts.sealLater(bashTrueSeal("run_j1", startedAt));
    await new Promise((resolve) => setTimeout(resolve, 50));
    writeRun();
    await repos.writes.settled();
    const stored = await repos.receipts.get(id);
    expect(stored?.runId).toBe("run_j1");
    expect(await receipts.verify(stored!.receipt)).toEqual({ valid: true });
  });
});
