import { createPrivateKey, createPublicKey, generateKeyPairSync, sign } from "node:crypto";
import type { KeyObject } from "node:crypto";
import { sha256Hex } from "./sha256-hex";

/**
 * The runner's receipt key. The private key stays inside the closure: a signer can be logged or passed
 * around without leaking it.
 */
export interface ReceiptSigner {
  /** First 16 hex chars of sha256 over the public key's SPKI DER. */
  readonly keyId: string;
  /** SPKI PEM, what `GET /api/receipts/public-key` serves. */
  readonly publicKeyPem: string;
  /** Ed25519 signature of `message` (64 bytes). */
  sign(message: Uint8Array): Buffer;
}

/** A new Ed25519 private key as PKCS#8 PEM. */
export function generateSigningKeyPem(): string {
  return generateKeyPairSync("ed25519").privateKey.export({ type: "pkcs8", format: "pem" }).toString();
}

/** Parses a public key (SPKI PEM, or a KeyObject; a private key yields its public half) and checks it is Ed25519. */
export function toPublicKey(publicKey: string | KeyObject): KeyObject {
  const key =
    typeof publicKey === "string"
      ? createPublicKey(publicKey)
      : publicKey.type === "private"
        ? createPublicKey(publicKey)
        : publicKey;
  if (key.asymmetricKeyType !== "ed25519") {
    throw new TypeError(`expected an Ed25519 public key, got ${key.asymmetricKeyType ?? key.type}`);
  }
  return key;
}

/** Short, stable name of a public key: the first 16 hex chars of sha256(SPKI DER). */
export function keyIdOf(publicKey: string | KeyObject): string {
  const der = toPublicKey(publicKey).export({ type: "spki", format: "der" });
  return sha256Hex(der).slice(0, 16);
}

/** A signer over an Ed25519 private key (PKCS#8 PEM or KeyObject). */
export function createReceiptSigner(privateKey: string | KeyObject): ReceiptSigner {
  const key = typeof privateKey === "string" ? createPrivateKey(privateKey) : privateKey;
  if (key.type !== "private" || key.asymmetricKeyType !== "ed25519") {
    throw new TypeError(`expected an Ed25519 private key, got ${key.asymmetricKeyType ?? key.type} ${key.type}`);
  }
  const publicKey = createPublicKey(key);
  return {
    keyId: keyIdOf(publicKey),
    publicKeyPem: publicKey.export({ type: "spki", format: "pem" }).toString(),
    // Ed25519 hashes internally, so the algorithm argument is null.
    sign: (message) => sign(null, message, key),
  };
}
