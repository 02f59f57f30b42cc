import { chmod, mkdtemp, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { readdir } from "node:fs/promises";
import { PUBLIC_KEY_FILE, SIGNING_KEY_FILE, loadOrCreateSigningKey, rotateSigningKey } from "./load-or-create-signing-key";
import { keyIdOf } from "./receipt-signer";

describe("loadOrCreateSigningKey", () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), "berth-receipts-"));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("creates a 0600 Ed25519 key on first use and loads the same key after", async () => {
    const dataDir = join(dir, "data");
    const first = await loadOrCreateSigningKey(dataDir);
    expect(first.created).toBe(true);
    expect((await stat(first.path)).mode & 0o777).toBe(0o600);
    expect(await readFile(first.path, "utf8")).toMatch(/^-----BEGIN PRIVATE KEY-----/);

    const second = await loadOrCreateSigningKey(dataDir);
    expect(second.created).toBe(false);
    expect(second.signer.keyId).toBe(first.signer.keyId);
    expect(first.signer.keyId).toMatch(/^[0-9a-f]{16}$/);
    expect(keyIdOf(first.signer.publicKeyPem)).toBe(first.signer.keyId);
  });

  it("writes the public key next to it for berth-verify --key", async () => {
    const { signer } = await loadOrCreateSigningKey(dir);
    expect(await readFile(join(dir, PUBLIC_KEY_FILE), "utf8")).toBe(signer.publicKeyPem);
  });

  it("never serialises the private key with the signer", async () => {
    const { signer } = await loadOrCreateSigningKey(dir);
    expect(JSON.stringify(signer)).not.toMatch(/PRIVATE/);
  });

  it("yields one key when several processes start at once", async () => {
    const results = await Promise.all(Array.from({ length: 8 }, () => loadOrCreateSigningKey(dir)));
    expect(new Set(results.map((r) => r.signer.keyId)).size).toBe(1);
    expect(results.filter((r) => r.created)).toHaveLength(1);
  });

  it("tightens a key file that others can read", async () => {
    const { path } = await loadOrCreateSigningKey(dir);
    await chmod(path, 0o644);
    await loadOrCreateSigningKey(dir);
    expect((await stat(path)).mode & 0o777).toBe(0o600);
  });

  it("refuses a corrupt key file by path instead of replacing it", async () => {
    await writeFile(join(dir, SIGNING_KEY_FILE), "not a key", { mode: 0o600 });
    await expect(loadOrCreateSigningKey(dir)).rejects.toThrow(SIGNING_KEY_FILE);
    expect(await readFile(join(dir, SIGNING_KEY_FILE), "utf8")).toBe("not a key");
  });

  it("rotates to a new 0600 key that later starts load, with its public half beside it and no temp file left", async () => {
    const old = await loadOrCreateSigningKey(dir);
    const rotated = await rotateSigningKey(dir);
    expect(rotated.signer.keyId).not.toBe(old.signer.keyId);
    expect((await stat(rotated.path)).mode & 0o777).toBe(0o600);
    expect((await loadOrCreateSigningKey(dir)).signer.keyId).toBe(rotated.signer.keyId);
    expect(await readFile(join(dir, PUBLIC_KEY_FILE), "utf8")).toBe(rotated.signer.publicKeyPem);
    expect((await readdir(dir)).sort()).toEqual([SIGNING_KEY_FILE, PUBLIC_KEY_FILE].sort());
  });
});
