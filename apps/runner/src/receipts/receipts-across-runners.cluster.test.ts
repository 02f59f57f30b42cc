import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { berthVerify as verifyCli, buildBerthVerify } from "../testing/berth-verify-cli";
import { startTwoRunners, type TwoRunners } from "../testing/two-runners";

// Receipts across runners (issue 20, docs/scale-out.md): two real runners on one PostgreSQL database and one Redis,
// each with its own key and chain. A receipt sealed on A verifies through B: its verify route, berth-verify against
// B's URL, and B's share page; after A rotates its key, what the old key signed still verifies on B.

type Result = { ok: boolean; runId?: string; receiptId?: string };
type Receipt = { body: { id: string; ledgerId: string; seq: number; prevDigest: string | null }; digest: string; signature: { keyId: string } };
type ReceiptKey = { keyId: string; runnerId: string; publicKey: string; retiredAt?: string | null };
type Shared = { verification: { valid: boolean; reason?: string }; publicKey: ReceiptKey | null; logs: { stdout: { content: string } } };

let runners: TwoRunners;
let session: string;

async function sealOnA(command: string): Promise<Receipt> {
  const run = await runners.a.tool<Result>(session, "bash", { action: "exec", command });
  expect(run.body).toMatchObject({ ok: true, receiptId: expect.any(String) });
  return (await runners.a.api<Receipt>("GET", `/api/receipts/${run.body.receiptId}`)).body;
}

beforeAll(async () => {
  buildBerthVerify();
  runners = await startTwoRunners();
  session = await runners.a.createSession({ autonomy: "trusted" });
}, 300_000);
afterAll(async () => runners?.close(), 120_000);

describe("receipts across runners", () => {
  it("publishes both runners' keys on each runner, without a token", async () => {
    for (const runner of [runners.a, runners.b]) {
      const keys = (await (await fetch(`${runner.url}/api/receipts/keys`)).json()) as { keys: ReceiptKey[] };
      const own = (await (await fetch(`${runner.url}/api/receipts/public-key`)).json()) as { keyId: string };
      expect(keys.keys.filter((k) => !k.retiredAt).map((k) => k.keyId)).toContain(own.keyId);
      expect(new Set(keys.keys.map((k) => k.runnerId)).size).toBe(2);
    }
  });

  it("verifies a receipt sealed on A through B's verify route, berth-verify against B's URL and B's share page", async () => {
    const receipt = await sealOnA("echo sealed-on-a");
    const keyOfA = (await runners.a.api<{ keyId: string }>("GET", "/api/receipts/public-key")).body.keyId;
    expect(receipt.signature.keyId).toBe(keyOfA);
    expect((await runners.b.api("POST", "/api/receipts/verify", { receipt })).body).toEqual({ valid: true });

    const file = path.join(runners.b.dataDir, "from-a.json");
    fs.writeFileSync(file, JSON.stringify(receipt));
    expect(await verifyCli([file], { ...process.env, BERTH_URL: runners.b.url })).toEqual({ stdout: "valid\n", code: 0 });

    // The link is made on A and opened on B, whose files do not hold A's log until it copies it from the database.
    const share = await runners.a.api<{ token: string }>("POST", `/api/receipts/${receipt.body.id}/share`);
    const shared = (await (await fetch(`${runners.b.url}/api/shared/${share.body.token}`)).json()) as Shared;
    expect(shared.verification).toEqual({ valid: true });
    expect(shared.publicKey).toMatchObject({ keyId: keyOfA, runnerId: expect.stringMatching(/^a-/) });
    expect(shared.logs.stdout.content).toBe("sealed-on-a\n");
    expect(await verifyCli([`${runners.b.url}/share/${share.body.token}`])).toEqual({ stdout: "valid\n", code: 0 });
  });

  it("rotates A's key: B still verifies what the old key signed, and the next receipt under the new key", async () => {
    const before = await sealOnA("echo before-rotation");
    const rotated = await runners.a.api<{ key: ReceiptKey; retired: ReceiptKey }>("POST", "/api/receipts/keys/rotate");
    expect(rotated.body.retired).toMatchObject({ keyId: before.signature.keyId, retiredAt: expect.any(String) });
    const after = await sealOnA("echo after-rotation");
    expect(after.signature.keyId).toBe(rotated.body.key.keyId);
    expect(after.body).toMatchObject({ ledgerId: before.body.ledgerId, seq: before.body.seq + 1, prevDigest: before.digest });

    for (const receipt of [before, after]) {
      expect((await runners.b.api("POST", "/api/receipts/verify", { receipt })).body).toEqual({ valid: true });
    }
    const chain = path.join(runners.b.dataDir, "rotated-chain.json");
    fs.writeFileSync(chain, JSON.stringify([before, after]));
    expect(await verifyCli([chain], { ...process.env, BERTH_URL: runners.b.url })).toEqual({ stdout: "valid\n", code: 0 });
  });
});
