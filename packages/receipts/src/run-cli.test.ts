import type { Receipt } from "@berth/protocol";
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

let dir: string;
let server: Server;
let origin: string;
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

  const routes: Record<string, unknown> = {
    "/api/receipts/public-key": { keyId: signer.keyId, publicKey: signer.publicKeyPem },
    "/api/shared/good": shared(r1),
    "/api/shared/tampered": shared(tampered),
    "/api/shared/wrong-run": { ...shared(r1), run: { id: "run_other" } },
  };
  server = createServer((request, response) => {
    const body = routes[new URL(request.url ?? "/", "http://x").pathname];
    response.writeHead(body ? 200 : 404, { "content-type": "application/json" });
    response.end(JSON.stringify(body ?? { error: { code: "not_found", message: "no such share" } }));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}, 60_000);

afterAll(async () => {
  await new Promise((resolve) => server?.close(resolve));
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
      expect(result.stderr).toMatch(/no public key: pass --key <public-key.pem> or set BERTH_URL/);
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
