import type { Receipt, ReceiptKey } from "@berth/protocol";
import { execFile } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { createServer } from "node:http";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Ledger } from "./ledger";
import { createReceiptSigner, generateSigningKeyPem } from "./receipt-signer";
import { sampleReceiptInput } from "./sample-receipt-input";
import { sharedApiUrl } from "./run-cli";

const packageDir = fileURLToPath(new URL("..", import.meta.url));
const bin = join(packageDir, "bin", "berth-verify.mjs");

const signer = createReceiptSigner(generateSigningKeyPem());
const other = createReceiptSigner(generateSigningKeyPem());
const ledger = new Ledger({ signer });
const r0 = ledger.seal(sampleReceiptInput({ id: "rcpt_0" }));
const r1 = ledger.seal(sampleReceiptInput({ id: "rcpt_1" }));
const r2 = ledger.seal(sampleReceiptInput({ id: "rcpt_2" }));
const tampered: Receipt = { ...r1, body: { ...r1.body, exitCode: 1 } };

// A deployment of two runners: `signer` rotated to `rotated` at 10:00:03; `other` is runner b's key.
const rotated = createReceiptSigner(generateSigningKeyPem());
const published = (key: typeof signer, runnerId: string, retiredAt: string | null = null): ReceiptKey => ({
  keyId: key.keyId,
  runnerId,
  publicKey: key.publicKeyPem,
  createdAt: "2026-11-30T09:00:00.000Z",
  retiredAt,
});
const keySet = { keys: [published(signer, "a", "2026-11-30T10:00:03.000Z"), published(rotated, "a"), published(other, "b")] };
ledger.rotate(rotated);
const r3 = ledger.seal(sampleReceiptInput({ id: "rcpt_3", issuedAt: "2026-11-30T10:00:04.000Z" }));
const fromB = new Ledger({ signer: other }).seal(sampleReceiptInput({ id: "rcpt_b0" }));
// The retired key signing after its retirement (a stolen key).
const late = new Ledger({ signer }).seal(sampleReceiptInput({ id: "rcpt_late", issuedAt: "2026-11-30T10:00:05.000Z" }));
const shared = (receipt: Receipt) => ({
  receipt,
  run: { id: receipt.body.run.id, status: "finished" },
  logs: { stdout: "gh\n", stderr: "" },
});

interface Result {
  code: number | null;
  stdout: string;
  stderr: string;
}

// Async on purpose: the test's HTTP server lives in this process and must keep serving meanwhile.
function berthVerify(args: string[], env: Record<string, string> = {}): Promise<Result> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [bin, ...args],
      { env: { PATH: process.env["PATH"] ?? "", ...env }, timeout: 15_000 },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === "number" ? error.code : null) : 0;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

function run(command: string, args: string[], cwd: string): Promise<void> {
  return new Promise((resolve, reject) => {
    execFile(command, args, { cwd }, (error, _stdout, stderr) => (error ? reject(new Error(stderr)) : resolve()));
  });
}

/** A stand-in instance answering JSON by path (404 for any other), on a free port of 127.0.0.1. */
async function serveJson(routes: Record<string, unknown>): Promise<{ server: Server; origin: string }> {
  const server = createServer((request, response) => {
    const body = routes[new URL(request.url ?? "/", "http://x").pathname];
    response.writeHead(body ? 200 : 404, { "content-type": "application/json" });
    response.end(JSON.stringify(body ?? { error: { code: "not_found", message: "no such share" } }));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { server, origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

let dir: string;
let server: Server;
let origin: string;
let keysServer: Server;
let keysOrigin: string;
const file = (name: string) => join(dir, name);

beforeAll(async () => {
  // The CLI under test is the bundle plain node runs, exactly as `npm run build` makes it.
  await run(process.execPath, ["build.mjs"], packageDir);
  dir = await mkdtemp(join(tmpdir(), "berth-verify-"));
  await writeFile(file("r1.json"), JSON.stringify(r1, null, 2));
  await writeFile(file("r0.json"), JSON.stringify(r0));
  await writeFile(file("tampered.json"), JSON.stringify(tampered));
  await writeFile(file("shared.json"), JSON.stringify(shared(r1)));
  await writeFile(file("chain.json"), JSON.stringify([r0, r1, r2]));
  await writeFile(file("reordered.json"), JSON.stringify([r0, r2, r1]));
  await writeFile(file("not-json.json"), "{ nope");
  await writeFile(file("not-a-key.txt"), "hello");
  await writeFile(file("key.pem"), signer.publicKeyPem);
  await writeFile(file("key.json"), JSON.stringify({ keyId: signer.keyId, publicKey: signer.publicKeyPem }));
  await writeFile(file("other.pem"), other.publicKeyPem);
  await writeFile(file("keys.json"), JSON.stringify(keySet));
  await writeFile(file("keys-array.json"), JSON.stringify(keySet.keys.slice(2)));
  await writeFile(file("bad-keys.json"), JSON.stringify({ keys: [{ ...published(other, "b"), keyId: signer.keyId }] }));
  await writeFile(file("rotated-chain.json"), JSON.stringify([r0, r1, r2, r3]));
  await writeFile(file("r2.json"), JSON.stringify(r2));
  await writeFile(file("r3.json"), JSON.stringify(r3));
  await writeFile(file("from-b.json"), JSON.stringify(fromB));
  await writeFile(file("late.json"), JSON.stringify(late));

  const routes: Record<string, unknown> = {
    "/api/receipts/public-key": { keyId: signer.keyId, publicKey: signer.publicKeyPem },
    "/api/shared/good": shared(r1),
    "/api/shared/tampered": shared(tampered),
    "/api/shared/wrong-run": { ...shared(r1), run: { id: "run_other" } },
  };
  ({ server, origin } = await serveJson(routes));

  // An instance that publishes its key set: the CLI takes /api/receipts/keys, not public-key.
  ({ server: keysServer, origin: keysOrigin } = await serveJson({
    "/api/receipts/keys": keySet,
    "/api/shared/from-b": shared(fromB),
    "/api/shared/late": shared(late),
  }));
}, 60_000);

afterAll(async () => {
  await new Promise((resolve) => server?.close(resolve));
  await new Promise((resolve) => keysServer?.close(resolve));
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe("berth-verify (built CLI)", () => {
  describe("with a file", () => {
    it("prints valid for an untouched receipt and a PEM key", async () => {
      expect(await berthVerify([file("r1.json"), "--key", file("key.pem")])).toEqual({
        code: 0,
        stdout: "valid\n",
        stderr: "",
      });
    });

    it("accepts the saved JSON of /api/receipts/public-key as the key", async () => {
      expect(await berthVerify(["--key", file("key.json"), file("r1.json")])).toMatchObject({
        code: 0,
        stdout: "valid\n",
      });
    });

    it("prints the reason and exits 1 for a tampered receipt", async () => {
      const result = await berthVerify([file("tampered.json"), "--key", file("key.pem")]);
      expect(result.code).toBe(1);
      expect(result.stdout).toMatch(/^invalid: digest mismatch: body hashes to [0-9a-f]{64}/);
    });

    it("exits 1 with key id mismatch under another key", async () => {
      const result = await berthVerify([file("r1.json"), "--key", file("other.pem")]);
      expect(result).toMatchObject({ code: 1, stdout: expect.stringMatching(/^invalid: key id mismatch/) });
    });

    it("verifies the shared JSON with the key fetched from BERTH_URL", async () => {
      expect(await berthVerify([file("shared.json")], { BERTH_URL: origin })).toMatchObject({
        code: 0,
        stdout: "valid\n",
      });
    });

    it("checks the chain link with --previous", async () => {
      const key = ["--key", file("key.pem")];
      expect(await berthVerify([file("r1.json"), "--previous", file("r0.json"), ...key])).toMatchObject({ code: 0 });
      const broken = await berthVerify([file("r0.json"), "--previous", file("r1.json"), ...key]);
      expect(broken).toMatchObject({ code: 1, stdout: expect.stringMatching(/^invalid: chain link broken/) });
    });

    it("verifies an array of receipts as one chain, and names where a reordered one breaks", async () => {
      const key = ["--key", file("key.pem")];
      expect(await berthVerify([file("chain.json"), ...key])).toMatchObject({ code: 0, stdout: "valid\n" });
      expect(await berthVerify([file("reordered.json"), ...key])).toMatchObject({
        code: 1,
        stdout: expect.stringMatching(/^invalid: receipt\[1\]: chain link broken: prevDigest/),
      });
    });

    it("exits 2 and says how to get a key when there is none", async () => {
      const result = await berthVerify([file("r1.json")]);
      expect(result).toMatchObject({ code: 2, stdout: "" });
      expect(result.stderr).toMatch(/no public key: pass --key <public-key.pem> or --keys <keys.json>, or set BERTH_URL/);
    });

    it("exits 2 for a key file that holds no Ed25519 public key", async () => {
      const result = await berthVerify([file("r1.json"), "--key", file("r0.json")]);
      expect(result).toMatchObject({
        code: 2,
        stderr: expect.stringMatching(/--key file .* is JSON but not \{keyId, publicKey\}/),
      });
      const garbage = await berthVerify([file("r1.json"), "--key", file("not-a-key.txt")]);
      expect(garbage).toMatchObject({ code: 2, stderr: expect.stringMatching(/is not an Ed25519 public key/) });
    });

    it("exits 2 for a file it cannot read or that is not JSON", async () => {
      const missing = await berthVerify([file("missing.json"), "--key", file("key.pem")]);
      expect(missing).toMatchObject({ code: 2, stderr: expect.stringMatching(/cannot read receipt file .*ENOENT/) });
      const garbage = await berthVerify([file("not-json.json"), "--key", file("key.pem")]);
      expect(garbage).toMatchObject({ code: 2, stderr: expect.stringMatching(/is not JSON/) });
    });
  });

  describe("with a URL", () => {
    it("verifies a share page link, fetching the key from the same origin", async () => {
      const result = await berthVerify([`${origin}/share/good`]);
      expect(result).toMatchObject({ code: 0, stdout: "valid\n" });
      expect(result.stderr).toContain(`note: key ${signer.keyId} came from ${origin}`);
    });

    it("verifies the /api/shared/ JSON URL", async () => {
      expect(await berthVerify([`${origin}/api/shared/good`])).toMatchObject({ code: 0, stdout: "valid\n" });
    });

    it("uses a pinned --key instead of the server's", async () => {
      const result = await berthVerify([`${origin}/share/good`, "--key", file("other.pem")]);
      expect(result).toMatchObject({ code: 1, stdout: expect.stringMatching(/^invalid: key id mismatch/) });
    });

    it("reports a tampered shared receipt", async () => {
      const result = await berthVerify([`${origin}/share/tampered`]);
      expect(result).toMatchObject({ code: 1, stdout: expect.stringMatching(/^invalid: digest mismatch/) });
    });

    it("reports a shared run that is not the receipt's run", async () => {
      const result = await berthVerify([`${origin}/api/shared/wrong-run`]);
      expect(result).toMatchObject({
        code: 1,
        stdout: "invalid: run mismatch: shared run run_other, receipt is for run_0001\n",
      });
    });

    it("exits 2 when the share does not exist", async () => {
      const result = await berthVerify([`${origin}/share/nope`]);
      expect(result).toMatchObject({
        code: 2,
        stderr: expect.stringMatching(/could not fetch .*\/api\/shared\/nope: HTTP 404/),
      });
    });
  });

  describe("with the deployment's key set", () => {
    it("verifies receipts of any runner with --keys, the saved JSON or a bare array", async () => {
      expect(await berthVerify([file("r1.json"), "--keys", file("keys.json")])).toMatchObject({ code: 0, stdout: "valid\n" });
      expect(await berthVerify([file("from-b.json"), "--keys", file("keys.json")])).toMatchObject({ code: 0, stdout: "valid\n" });
      expect(await berthVerify([file("from-b.json"), "--keys", file("keys-array.json")])).toMatchObject({ code: 0 });
    });

    it("verifies a chain across a key rotation, each receipt with the key it names", async () => {
      expect(await berthVerify([file("rotated-chain.json"), "--keys", file("keys.json")])).toMatchObject({
        code: 0,
        stdout: "valid\n",
      });
      const keys = ["--keys", file("keys.json")];
      expect(await berthVerify([file("r3.json"), "--previous", file("r2.json"), ...keys])).toMatchObject({ code: 0 });
      expect(await berthVerify([file("r3.json"), "--previous", file("r1.json"), ...keys])).toMatchObject({
        code: 1,
        stdout: expect.stringMatching(/^invalid: chain link broken/),
      });
    });

    it("exits 1 for a key the set does not hold and for a key retired before the receipt was issued", async () => {
      const unknown = await berthVerify([file("r1.json"), "--keys", file("keys-array.json")]);
      expect(unknown).toMatchObject({ code: 1, stdout: `invalid: unknown key: receipt names key ${signer.keyId}, which this deployment does not publish (published: ${other.keyId})\n` });
      const retired = await berthVerify([file("late.json"), "--keys", file("keys.json")]);
      expect(retired).toMatchObject({
        code: 1,
        stdout: `invalid: key retired: key ${signer.keyId} of runner a was retired at 2026-11-30T10:00:03.000Z, before the receipt was issued at 2026-11-30T10:00:05.000Z\n`,
      });
    });

    it("fetches the key set from BERTH_URL and from a share link's origin, and says where it came from", async () => {
      expect(await berthVerify([file("from-b.json")], { BERTH_URL: keysOrigin })).toMatchObject({ code: 0, stdout: "valid\n" });
      const viaLink = await berthVerify([`${keysOrigin}/share/from-b`]);
      expect(viaLink).toMatchObject({ code: 0, stdout: "valid\n" });
      expect(viaLink.stderr).toContain(`note: keys ${signer.keyId}, ${rotated.keyId}, ${other.keyId} came from ${keysOrigin}`);
      expect(await berthVerify([`${keysOrigin}/share/late`])).toMatchObject({ code: 1, stdout: expect.stringMatching(/^invalid: key retired/) });
    });

    it("exits 2 for a key set whose key is not the key its id names, and for --key with --keys", async () => {
      const bad = await berthVerify([file("r1.json"), "--keys", file("bad-keys.json")]);
      expect(bad).toMatchObject({ code: 2, stderr: expect.stringMatching(new RegExp(`key ${signer.keyId} of --keys file .* is the key ${other.keyId}`)) });
      const notKeys = await berthVerify([file("r1.json"), "--keys", file("r0.json")]);
      expect(notKeys).toMatchObject({ code: 2, stderr: expect.stringMatching(/is not \{keys: \[/) });
      const both = await berthVerify([file("r1.json"), "--key", file("key.pem"), "--keys", file("keys.json")]);
      expect(both).toMatchObject({ code: 2, stderr: expect.stringMatching(/pass --key or --keys, not both/) });
    });
  });

  describe("usage", () => {
    it.each([[[]], [["a.json", "b.json"]], [["--nope", "a.json"]], [["a.json", "--key"]]])(
      "exits 2 for %j",
      async (args) => {
        const result = await berthVerify(args);
        expect(result.code).toBe(2);
        expect(result.stderr).toMatch(/Usage: berth-verify/);
      },
    );

    it("prints usage with --help", async () => {
      expect(await berthVerify(["--help"])).toMatchObject({ code: 0, stdout: expect.stringMatching(/^Usage: /) });
    });
  });
});

describe("sharedApiUrl", () => {
  it.each([
    ["http://127.0.0.1:3000/share/abc", "http://127.0.0.1:3000/api/shared/abc"],
    ["http://127.0.0.1:3000/share/abc/", "http://127.0.0.1:3000/api/shared/abc"],
    ["http://127.0.0.1:3000/api/shared/abc", "http://127.0.0.1:3000/api/shared/abc"],
    ["https://berth.example/x/receipt.json", "https://berth.example/x/receipt.json"],
  ])("%s → %s", (input, expected) => {
    expect(sharedApiUrl(input)).toBe(expected);
  });
});
