import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { createDatabase, createRepositories, type Repositories } from "@berth/db";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { migrate } from "../testing/runner-test-kit";
import { ReceiptService } from "./receipt-service";

// Two runners on one database (PostgreSQL scale-out) each keep their own hash chain, under their own key.
// Real SQLite with the real migrations; no Docker.
let dataDir: string;
let repos: Repositories;

beforeAll(async () => {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "berth-ledgers-"));
  migrate(dataDir);
  repos = createRepositories(await createDatabase({ dataDir }));
  await repos.users.create({ id: "user_a", name: "a", role: "developer" });
  await repos.sessions.create({ id: "ses_a", name: "ledgers", ownerId: "user_a", autonomy: "default", network: "none", env: {} });
}, 60_000);

afterAll(async () => {
  await repos?.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

const EMPTY_SHA256 = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";

async function sealOne(receipts: ReceiptService, runId: string): Promise<{ seq: number; keyId: string; prevDigest: string | null }> {
  const startedAt = new Date();
  await repos.runs.create({ id: runId, sessionId: "ses_a", userId: "user_a", tool: "bash", kind: "bash", args: {}, secrets: [], caller: null, startedAt });
  const id = await receipts.sealRun({
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
  const { receipt } = (await repos.receipts.get(id))!;
  return { seq: receipt.body.seq, keyId: receipt.signature.keyId, prevDigest: receipt.body.prevDigest };
}

describe("receipt ledgers on a shared database", () => {
  it("numbers each runner's receipts from 0 in its own chain, and a reopened runner continues its own", async () => {
    const first = await ReceiptService.open(repos.receipts, path.join(dataDir, "runner-a"), () => null, repos.writes);
    const second = await ReceiptService.open(repos.receipts, path.join(dataDir, "runner-b"), () => null, repos.writes);
    const a1 = await sealOne(first, "run_a1");
    const b1 = await sealOne(second, "run_b1");
    const a2 = await sealOne(first, "run_a2");
    expect(a1.keyId).not.toBe(b1.keyId);
    expect([a1.seq, b1.seq, a2.seq]).toEqual([0, 0, 1]);
    expect([a1.prevDigest, b1.prevDigest]).toEqual([null, null]);

    const secondAgain = await ReceiptService.open(repos.receipts, path.join(dataDir, "runner-b"), () => null, repos.writes);
    const b2 = await sealOne(secondAgain, "run_b2");
    expect(b2).toMatchObject({ keyId: b1.keyId, seq: 1 });
    expect(b2.prevDigest).toBe((await repos.receipts.getByRun("run_b1"))?.digest);
  });
});
