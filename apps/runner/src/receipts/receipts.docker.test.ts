import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { berthVerify as verifyCli, buildBerthVerify } from "../testing/berth-verify-cli";
import { startTestRunner, type TestRunner } from "../testing/runner-test-kit";

type Result = { ok: boolean; runId?: string; receiptId?: string };
type Receipt = { body: { ledgerId: string; seq: number }; signature: { keyId: string } };
type ReceiptKey = { keyId: string; runnerId: string; retiredAt?: string | null };

let kit: TestRunner;
let receiptId: string;

beforeAll(async () => {
  buildBerthVerify();
  kit = await startTestRunner();
  const session = await kit.createSession({ autonomy: "trusted" });
  await kit.tool(session, "write_file", { path: "hello.sh", content: "echo shared-output\n" });
  const run = await kit.tool<Result>(session, "run_script", { interpreter: "bash", script: "hello.sh" });
  receiptId = run.body.receiptId!;
});
afterAll(async () => kit?.close());

describe("sealed receipts and share links", () => {
  it("verifies an untouched receipt through the API and fails a tampered one with the reason", async () => {
    const { body: receipt } = await kit.api<{ body: { outcome: string } }>("GET", `/api/receipts/${receiptId}`);
    expect((await kit.api("POST", "/api/receipts/verify", { receipt })).body).toEqual({ valid: true });
    const tampered = structuredClone(receipt);
    tampered.body.outcome = "failed";
    const verdict = await kit.api<{ valid: boolean; reason: string }>("POST", "/api/receipts/verify", { receipt: tampered });
    expect(verdict.body).toMatchObject({ valid: false, reason: expect.stringMatching(/digest mismatch/) });
  });

  it("verifies with berth-verify from a file (public key from the runner) and from a share URL", async () => {
    const { body: receipt } = await kit.api("GET", `/api/receipts/${receiptId}`);
    const file = path.join(kit.dataDir, "receipt.json");
    fs.writeFileSync(file, JSON.stringify(receipt));
    const fromFile = await verifyCli([file], { ...process.env, BERTH_URL: kit.url });
    expect(fromFile).toEqual({ stdout: "valid\n", code: 0 });
    fs.writeFileSync(file, JSON.stringify(receipt).replace('"outcome":"succeeded"', '"outcome":"failed"'));
    const tampered = await verifyCli([file], { ...process.env, BERTH_URL: kit.url });
    expect(tampered.code).toBe(1);
    expect(tampered.stdout).toMatch(/^invalid: .*digest mismatch/);
    const share = await kit.api<{ token: string }>("POST", `/api/receipts/${receiptId}/share`);
    const fromUrl = await verifyCli([`${kit.url}/api/shared/${share.body.token}`]);
    expect(fromUrl.stdout.trim()).toBe("valid");
  });

  it("opens a share link with no token, shows verification and logs, and stops when revoked", async () => {
    const share = await kit.api<{ token: string; url: string }>("POST", `/api/receipts/${receiptId}/share`);
    expect(share.status).toBe(201);
    expect(share.body.url).toMatch(/\/share\//);
    const open = await fetch(`${kit.url}/api/shared/${share.body.token}`);
    expect(open.status).toBe(200);
    const shared = (await open.json()) as { verification: { valid: boolean }; logs: { stdout: { content: string } }; run: Record<string, unknown> };
    expect(shared.verification.valid).toBe(true);
    expect(shared.logs.stdout.content).toBe("shared-output\n");
    expect(shared.run).not.toHaveProperty("sessionId");
    await kit.api("DELETE", `/api/receipts/${receiptId}/share`);
    expect((await fetch(`${kit.url}/api/shared/${share.body.token}`)).status).toBe(404);
  });

  it("chains receipts: each names the previous digest", async () => {
    const runs = await kit.api<{ runs: { receiptId: string }[] }>("GET", "/api/runs?limit=10");
    const receipts = await Promise.all(runs.body.runs.filter((r) => r.receiptId).map(async (r) => (await kit.api<{ body: { seq: number; prevDigest: string | null }; digest: string }>("GET", `/api/receipts/${r.receiptId}`)).body));
    receipts.sort((a, b) => a.body.seq - b.body.seq);
    for (let i = 1; i < receipts.length; i++) expect(receipts[i]!.body.prevDigest).toBe(receipts[i - 1]!.digest);
  });

  it("rotates the runner's key: old receipts still verify, new ones are signed by the new key and go on in the chain", async () => {
    const { body: old } = await kit.api<Receipt>("GET", `/api/receipts/${receiptId}`);
    const before = (await kit.api<{ keyId: string }>("GET", "/api/receipts/public-key")).body;
    const published = (await (await fetch(`${kit.url}/api/receipts/keys`)).json()) as { keys: ReceiptKey[] };
    const runnerId = published.keys.find((k) => k.keyId === before.keyId)!.runnerId;
    // A rotation meant for another runner (a proxy picked this one) is refused, and nothing changes.
    const misrouted = await kit.api<{ error: { code: string; message: string } }>("POST", "/api/receipts/keys/rotate", { runnerId: "another-runner" });
    expect(misrouted.status).toBe(409);
    expect(misrouted.body.error.message).toBe(`runnerId another-runner is not this runner (${runnerId}): send the rotation to that runner's own URL`);
    expect((await kit.api<{ keyId: string }>("GET", "/api/receipts/public-key")).body.keyId).toBe(before.keyId);

    const rotated = await kit.api<{ key: ReceiptKey; retired: ReceiptKey }>("POST", "/api/receipts/keys/rotate", { runnerId });
    expect(rotated.status).toBe(200);
    expect(rotated.body.retired).toMatchObject({ keyId: before.keyId, retiredAt: expect.any(String) });
    expect(rotated.body.key.keyId).not.toBe(before.keyId);
    expect((await kit.api<{ keyId: string }>("GET", "/api/receipts/public-key")).body.keyId).toBe(rotated.body.key.keyId);

    // The key set needs no token, like the public key.
    const keys = (await (await fetch(`${kit.url}/api/receipts/keys`)).json()) as { keys: ReceiptKey[] };
    expect(keys.keys.map((k) => [k.keyId, k.retiredAt ?? null])).toEqual(
      expect.arrayContaining([
        [before.keyId, rotated.body.retired.retiredAt],
        [rotated.body.key.keyId, null],
      ]),
    );

    expect((await kit.api("POST", "/api/receipts/verify", { receipt: old })).body).toEqual({ valid: true });
    const session = await kit.createSession({ autonomy: "trusted" });
    const run = await kit.tool<Result>(session, "bash", { action: "exec", command: "echo after-rotation" });
    const { body: next } = await kit.api<Receipt>("GET", `/api/receipts/${run.body.receiptId}`);
    expect(next.signature.keyId).toBe(rotated.body.key.keyId);
    expect(next.body.ledgerId).toBe(old.body.ledgerId);
    expect((await kit.api("POST", "/api/receipts/verify", { receipt: next })).body).toEqual({ valid: true });

    // Offline, with the key set from the instance: both keys' receipts verify, as one chain across the rotation.
    const file = path.join(kit.dataDir, "rotated.json");
    for (const receipt of [old, next]) {
      fs.writeFileSync(file, JSON.stringify(receipt));
      expect(await verifyCli([file], { ...process.env, BERTH_URL: kit.url })).toEqual({ stdout: "valid\n", code: 0 });
    }
    fs.writeFileSync(path.join(kit.dataDir, "keys.json"), JSON.stringify(keys));
    expect(await verifyCli([file, "--keys", path.join(kit.dataDir, "keys.json")])).toEqual({ stdout: "valid\n", code: 0 });
  });
});
