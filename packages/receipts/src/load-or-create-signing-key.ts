import { randomBytes } from "node:crypto";
import { chmod, link, mkdir, readFile, rename, rm, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { AppError } from "@berth/protocol";
import { createReceiptSigner, generateSigningKeyPem } from "./receipt-signer";
import type { ReceiptSigner } from "./receipt-signer";

/** The private key (PKCS#8 PEM, mode 0600) inside the data dir. */
export const SIGNING_KEY_FILE = "receipt-signing-key.pem";
/** Its public half (SPKI PEM), for `berth-verify --key`. */
export const PUBLIC_KEY_FILE = "receipt-signing-key.pub.pem";

export interface LoadedSigningKey {
  signer: ReceiptSigner;
  /** Path of the private key file. */
  path: string;
  /** True when this call generated the key (first start). */
  created: boolean;
}

/**
 * The runner's receipt signer from `dataDir`, generating the key on first use. Safe against two
 * processes starting at once: the key is written to a temp file and hard-linked into place, so exactly
 * one key wins and nobody reads a half-written file. An existing key is never replaced (that would
 * orphan every receipt signed with it); a key file readable by others is tightened back to 0600.
 */
export async function loadOrCreateSigningKey(dataDir: string): Promise<LoadedSigningKey> {
  await mkdir(dataDir, { recursive: true, mode: 0o700 });
  const path = join(dataDir, SIGNING_KEY_FILE);
  let created = false;
  let pem = await readIfExists(path);
  if (pem === undefined) {
    created = await createKeyFile(path, generateSigningKeyPem());
    pem = await readFile(path, "utf8");
  }
  if (((await stat(path)).mode & 0o077) !== 0) await chmod(path, 0o600);

  let signer: ReceiptSigner;
  try {
    signer = createReceiptSigner(pem);
  } catch (cause) {
    throw new AppError({
      code: "internal",
      message: `receipt signing key ${path} is not an Ed25519 PKCS#8 PEM private key: ${(cause as Error).message}`,
      cause,
    });
  }
  const publicPath = join(dataDir, PUBLIC_KEY_FILE);
  if ((await readIfExists(publicPath)) !== signer.publicKeyPem) {
    await writeFile(publicPath, signer.publicKeyPem, { mode: 0o644 });
  }
  return { signer, path, created };
}

/**
 * Replaces the runner's key with a new one (a rotation) and returns its signer. The new key is written to a temp
 * file and renamed over the old one, so the file always holds one whole key; the old private key is gone from
 * disk (it must never sign again), while its public half stays published for what it signed.
 */
export async function rotateSigningKey(dataDir: string): Promise<LoadedSigningKey> {
  await mkdir(dataDir, { recursive: true, mode: 0o700 });
  const path = join(dataDir, SIGNING_KEY_FILE);
  const pem = generateSigningKeyPem();
  const signer = createReceiptSigner(pem);
  const tmp = `${path}.${process.pid}.${randomBytes(6).toString("hex")}.tmp`;
  await writeFile(tmp, pem, { mode: 0o600, flag: "wx" });
  try {
    await rename(tmp, path);
  } catch (error) {
    await rm(tmp, { force: true });
    throw error;
  }
  await writeFile(join(dataDir, PUBLIC_KEY_FILE), signer.publicKeyPem, { mode: 0o644 });
  return { signer, path, created: true };
}

async function createKeyFile(path: string, pem: string): Promise<boolean> {
  const tmp = `${path}.${process.pid}.${randomBytes(6).toString("hex")}.tmp`;
  await writeFile(tmp, pem, { mode: 0o600, flag: "wx" });
  try {
    await link(tmp, path);
    return true;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "EEXIST") return false; // another process created it first: use theirs
    if (code !== "EPERM" && code !== "ENOTSUP" && code !== "EXDEV") throw error;
    // Filesystems without hard links: exclusive create is the next best thing.
    try {
      await writeFile(path, pem, { mode: 0o600, flag: "wx" });
      return true;
    } catch (inner) {
      if ((inner as NodeJS.ErrnoException).code === "EEXIST") return false;
      throw inner;
    }
  } finally {
    await rm(tmp, { force: true });
  }
}

async function readIfExists(path: string): Promise<string | undefined> {
  try {
    return await readFile(path, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw error;
  }
}
