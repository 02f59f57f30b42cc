/**
 * Verifies a receipt where it is shown, with WebCrypto, exactly as packages/receipts does on a server:
 * shape, key id (sha256 of the SPKI DER, first 16 hex), the digest (sha256 of the RFC 8785 canonical JSON
 * of the body as received) and the Ed25519 signature over `berth-receipt-v1:<digest>`. The first failure
 * is the reason. Runs in any browser with Ed25519 in SubtleCrypto (Chromium, Firefox, Safari) and in Node.
 */
import { RECEIPT_SIGNING_PREFIX, ReceiptSchema, canonicalJson } from "@berth/protocol";

export type BrowserVerification = { valid: true; keyId: string } | { valid: false; reason: string };

/** The one canonical JSON (RFC 8785) of @berth/protocol: the browser hashes what the runner sealed. */
export { canonicalJson };

const hex = (bytes: ArrayBuffer) => Array.from(new Uint8Array(bytes), (b) => b.toString(16).padStart(2, "0")).join("");

function pemToDer(pem: string): Uint8Array {
  const body = pem.replace(/-----(BEGIN|END) PUBLIC KEY-----/g, "").replace(/\s+/g, "");
  const binary = atob(body);
  return Uint8Array.from(binary, (c) => c.charCodeAt(0));
}

function base64ToBytes(value: string): Uint8Array {
  return Uint8Array.from(atob(value), (c) => c.charCodeAt(0));
}

export async function verifyReceiptInBrowser(
  receipt: unknown,
  publicKeyPem: string,
  subtle: SubtleCrypto = globalThis.crypto.subtle,
): Promise<BrowserVerification> {
  const parsed = ReceiptSchema.safeParse(receipt);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return {
      valid: false,
      reason: `receipt shape: ${issue ? `${issue.path.join(".") || "(root)"}: ${issue.message}` : "invalid"}`,
    };
  }
  const { digest, signature } = parsed.data;

  let der: Uint8Array;
  let key: CryptoKey;
  try {
    der = pemToDer(publicKeyPem);
    key = await subtle.importKey("spki", der as BufferSource, { name: "Ed25519" }, false, ["verify"]);
  } catch (error) {
    return { valid: false, reason: `public key invalid: ${(error as Error).message}` };
  }
  const keyId = hex(await subtle.digest("SHA-256", der as BufferSource)).slice(0, 16);
  if (signature.keyId !== keyId)
    return {
      valid: false,
      reason: `key id mismatch: receipt names key ${signature.keyId}, the verifying key is ${keyId}`,
    };

  // The body exactly as received, so a field the schema let through is still covered.
  const encoder = new TextEncoder();
  const actual = hex(
    await subtle.digest("SHA-256", encoder.encode(canonicalJson((receipt as { body: unknown }).body))),
  );
  if (actual !== digest)
    return { valid: false, reason: `digest mismatch: body hashes to ${actual}, receipt says ${digest}` };

  let ok: boolean;
  try {
    ok = await subtle.verify(
      { name: "Ed25519" },
      key,
      base64ToBytes(signature.value) as BufferSource,
      encoder.encode(RECEIPT_SIGNING_PREFIX + digest),
    );
  } catch (error) {
    return { valid: false, reason: `signature invalid: ${(error as Error).message}` };
  }
  if (!ok) return { valid: false, reason: `signature invalid: not made by key ${keyId} over digest ${digest}` };
  return { valid: true, keyId };
}

/** The published key the share page gets with a receipt (`GET /api/shared/:token`): the one its signature names. */
export type PublishedKey = { keyId: string; publicKey: string; runnerId?: string; retiredAt?: string | null | undefined };

/**
 * verifyReceiptInBrowser with the deployment's published key, as the runner's verifyReceiptWithKeys: a key
 * retired before the receipt was issued verifies nothing it signed since.
 */
export async function verifyReceiptWithKeyInBrowser(
  receipt: unknown,
  key: PublishedKey,
  subtle: SubtleCrypto = globalThis.crypto.subtle,
): Promise<BrowserVerification> {
  const issuedAt = ReceiptSchema.safeParse(receipt).data?.body.issuedAt;
  if (key.retiredAt && issuedAt && Date.parse(key.retiredAt) < Date.parse(issuedAt)) {
    return {
      valid: false,
      reason: `key retired: key ${key.keyId} of runner ${key.runnerId ?? "?"} was retired at ${key.retiredAt}, before the receipt was issued at ${issuedAt}`,
    };
  }
  return verifyReceiptInBrowser(receipt, key.publicKey, subtle);
}
