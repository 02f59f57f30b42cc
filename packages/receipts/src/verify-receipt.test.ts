import type { Receipt } from "@berth/protocol";
import { describe, expect, it } from "vitest";
import { Ledger } from "./ledger";
import { createReceiptSigner, generateSigningKeyPem } from "./receipt-signer";
import { sampleReceiptInput } from "./sample-receipt-input";
import { receiptDigest, sealReceipt, signingMessage } from "./seal-receipt";
import { verifyReceipt } from "./verify-receipt";

const signer = createReceiptSigner(generateSigningKeyPem());
const attacker = createReceiptSigner(generateSigningKeyPem());
const ledger = new Ledger({ signer });
const r0 = ledger.seal(sampleReceiptInput({ id: "rcpt_0" }));
// The tamper subject sits at seq 1 so its prevDigest is a real digest, not the genesis null.
const r1 = ledger.seal(sampleReceiptInput({ id: "rcpt_1" }));
const r2 = ledger.seal(sampleReceiptInput({ id: "rcpt_2" }));

type Path = Array<string | number>;

function clone<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T;
}

/** Every leaf of a JSON value (empty arrays and objects count as leaves), as paths. */
function leafPaths(value: unknown, path: Path = []): Path[] {
  if (Array.isArray(value)) {
    return value.length ? value.flatMap((item, i) => leafPaths(item, [...path, i])) : [path];
  }
  if (typeof value === "object" && value !== null) {
    const entries = Object.entries(value);
    return entries.length ? entries.flatMap(([key, item]) => leafPaths(item, [...path, key])) : [path];
  }
  return [path];
}

function getAt(root: unknown, path: Path): unknown {
  return path.reduce<unknown>((node, key) => (node as Record<string | number, unknown>)[key], root);
}

function setAt(root: unknown, path: Path, value: unknown): void {
  const parent = getAt(root, path.slice(0, -1)) as Record<string | number, unknown>;
  parent[path[path.length - 1]!] = value;
}

/** A different value of the same kind, so the schema still passes and the digest has to catch it. */
function mutate(value: unknown): unknown {
  if (typeof value === "number") return value + 1;
  if (typeof value === "boolean") return !value;
  if (value === null) return "tampered";
  if (Array.isArray(value)) return ["tampered"];
  if (typeof value === "object") return { tampered: true };
  const text = value as string;
  if (/^[0-9a-f]{64}$/.test(text)) return text.slice(0, -1) + (text.endsWith("0") ? "1" : "0");
  if (!Number.isNaN(Date.parse(text)) && text.endsWith("Z")) return new Date(Date.parse(text) + 1000).toISOString();
  const swaps: Record<string, string> = { succeeded: "failed", created: "modified" };
  return swaps[text] ?? `${text}x`;
}

describe("verifyReceipt", () => {
  it("accepts an untouched receipt, also after a JSON round trip", () => {
    expect(verifyReceipt(r1, signer.publicKeyPem)).toEqual({ valid: true });
    expect(verifyReceipt(JSON.parse(JSON.stringify(r1, null, 2)), signer.publicKeyPem)).toEqual({ valid: true });
  });

  it("does not depend on key order (the digest is over canonical JSON)", () => {
    const reversed = (value: unknown): unknown =>
      Array.isArray(value)
        ? value.map(reversed)
        : typeof value === "object" && value !== null
          ? Object.fromEntries(
              Object.entries(value)
                .reverse()
                .map(([k, v]) => [k, reversed(v)]),
            )
          : value;
    expect(verifyReceipt(reversed(r1), signer.publicKeyPem)).toEqual({ valid: true });
  });

  const paths = leafPaths(r1.body);
  it("covers every body field", () => {
    expect(paths.length).toBeGreaterThan(40);
  });

  it.each(paths.map((path) => [path.join("."), path] as const))("fails when body.%s changes", (_name, path) => {
    const tampered = clone(r1);
    setAt(tampered.body, path, mutate(getAt(tampered.body, path)));
    const result = verifyReceipt(tampered, signer.publicKeyPem);
    expect(result.valid).toBe(false);
    // Either the digest catches it, or the change breaks the schema and the reason names the field.
    const field = `body.${path.map(String).join(".")}`.replace(/\.(\d+)/g, "[$1]");
    expect(result.valid ? "" : result.reason).toMatch(
      new RegExp(`^(digest mismatch|schema: ${field.replace(/[.[\]]/g, "\\$&")})`),
    );
  });

  it("mostly fails on the digest, not the schema (the mutations are realistic)", () => {
    const reasons = paths.map((path) => {
      const tampered = clone(r1);
      setAt(tampered.body, path, mutate(getAt(tampered.body, path)));
      const result = verifyReceipt(tampered, signer.publicKeyPem);
      return result.valid ? "valid" : result.reason.split(":")[0];
    });
    expect(reasons.filter((r) => r === "digest mismatch").length).toBeGreaterThan(paths.length * 0.9);
  });

  it.each(Object.keys(r1.body))("names the missing field body.%s", (key) => {
    const tampered = clone(r1) as unknown as { body: Record<string, unknown> };
    delete tampered.body[key];
    const result = verifyReceipt(tampered, signer.publicKeyPem);
    expect(result).toEqual({ valid: false, reason: expect.stringMatching(new RegExp(`^schema: body\\.${key}: `)) });
  });

  it("refuses an added field by name (nothing unplanned rides in a receipt)", () => {
    const tampered = clone(r1) as unknown as { body: Record<string, unknown> };
    tampered.body["password"] = "hunter2";
    const result = verifyReceipt(tampered, signer.publicKeyPem);
    expect(result.valid ? "" : result.reason).toMatch(/^schema: body: .*password/);
  });

  it("covers extra sandbox posture fields with the digest", () => {
    const tampered = clone(r1);
    (tampered.body.sandbox!.posture as Record<string, unknown>)["privileged"] = true;
    expect(verifyReceipt(tampered, signer.publicKeyPem)).toEqual({
      valid: false,
      reason: expect.stringMatching(/^digest mismatch/),
    });
  });

  it("fails when the digest changes", () => {
    const tampered = clone(r1);
    tampered.digest = mutate(tampered.digest) as string;
    expect(verifyReceipt(tampered, signer.publicKeyPem)).toEqual({
      valid: false,
      reason: expect.stringMatching(/^digest mismatch: body hashes to [0-9a-f]{64}, receipt says/),
    });
  });

  it("fails when the signature changes", () => {
    const tampered = clone(r1);
    tampered.signature.value = r2.signature.value;
    expect(verifyReceipt(tampered, signer.publicKeyPem)).toEqual({
      valid: false,
      reason: expect.stringMatching(/^signature invalid/),
    });
  });

  it("fails when the signature algorithm changes", () => {
    const tampered = clone(r1) as unknown as { signature: { alg: string } };
    tampered.signature.alg = "RS256";
    expect(verifyReceipt(tampered, signer.publicKeyPem)).toEqual({
      valid: false,
      reason: expect.stringMatching(/^schema: signature\.alg: /),
    });
  });

  it("fails when a field changes and the digest is recomputed (only the key can sign)", () => {
    const tampered = clone(r1);
    tampered.body.exitCode = 0;
    tampered.body.outcome = "failed";
    tampered.digest = receiptDigest(tampered.body);
    expect(verifyReceipt(tampered, signer.publicKeyPem)).toEqual({
      valid: false,
      reason: expect.stringMatching(/^signature invalid/),
    });
  });

  describe("key swap", () => {
    it("fails against another runner's key", () => {
      expect(verifyReceipt(r1, attacker.publicKeyPem)).toEqual({
        valid: false,
        reason: `key id mismatch: receipt names key ${signer.keyId}, the verifying key is ${attacker.keyId}`,
      });
    });

    it("fails when the receipt is re-sealed with another key", () => {
      const forged = sealReceipt(clone(r1.body), attacker);
      expect(verifyReceipt(forged, attacker.publicKeyPem)).toEqual({ valid: true });
      expect(verifyReceipt(forged, signer.publicKeyPem)).toEqual({
        valid: false,
        reason: expect.stringMatching(/^key id mismatch/),
      });
    });

    it("fails when another key signs but the key id claims the runner's", () => {
      const forged = clone(r1);
      forged.signature.value = attacker.sign(signingMessage(forged.digest)).toString("base64");
      expect(verifyReceipt(forged, signer.publicKeyPem)).toEqual({
        valid: false,
        reason: expect.stringMatching(/^signature invalid/),
      });
    });

    it("fails when only the key id is swapped", () => {
      const tampered = clone(r1);
      tampered.signature.keyId = attacker.keyId;
      expect(verifyReceipt(tampered, signer.publicKeyPem)).toEqual({
        valid: false,
        reason: expect.stringMatching(/^key id mismatch/),
      });
    });

    it("says so when the verifying key is not a key", () => {
      expect(verifyReceipt(r1, "not a pem")).toEqual({
        valid: false,
        reason: expect.stringMatching(/^public key invalid/),
      });
    });
  });

  describe("chain link", () => {
    it("accepts the receipt that follows the previous one", () => {
      expect(verifyReceipt(r1, signer.publicKeyPem, { previous: r0 })).toEqual({ valid: true });
      expect(verifyReceipt(r0, signer.publicKeyPem, { prevDigest: null })).toEqual({ valid: true });
      expect(verifyReceipt(r2, signer.publicKeyPem, { prevDigest: r1.digest })).toEqual({ valid: true });
    });

    it("fails when the previous receipt is not the one it points at", () => {
      expect(verifyReceipt(r2, signer.publicKeyPem, { previous: r0 })).toEqual({
        valid: false,
        reason: `chain link broken: prevDigest ${r1.digest} is not the previous receipt's digest ${r0.digest}`,
      });
      expect(verifyReceipt(r1, signer.publicKeyPem, { previous: r2 })).toEqual({
        valid: false,
        reason: expect.stringMatching(/^chain link broken: prevDigest/),
      });
      expect(verifyReceipt(r1, signer.publicKeyPem, { prevDigest: r2.digest })).toEqual({
        valid: false,
        reason: expect.stringMatching(/^chain link broken: prevDigest/),
      });
    });

    it("fails when a receipt claims the same parent under another ledger", () => {
      const fork = new Ledger({ signer, ledgerId: "other", head: Ledger.headOf(r0) }).seal(sampleReceiptInput());
      expect(verifyReceipt(fork, signer.publicKeyPem, { previous: r0 })).toEqual({
        valid: false,
        reason: `chain link broken: ledger other does not continue ledger ${signer.keyId}`,
      });
    });

    it("names what is wrong with a malformed previous receipt", () => {
      expect(verifyReceipt(r1, signer.publicKeyPem, { previous: { digest: "x" } })).toEqual({
        valid: false,
        reason: expect.stringMatching(/^previous receipt: schema: body: /),
      });
    });
  });

  it("names the field of a malformed receipt", () => {
    expect(verifyReceipt(null, signer.publicKeyPem)).toEqual({
      valid: false,
      reason: expect.stringMatching(/^schema: \(root\): /),
    });
    const bad = clone(r1) as unknown as { body: { run: { id: unknown } } };
    bad.body.run.id = 42;
    expect(verifyReceipt(bad, signer.publicKeyPem)).toEqual({
      valid: false,
      reason: expect.stringMatching(/^schema: body\.run\.id: /),
    });
  });

  it("returns a result assignable to the wire VerifyResult", () => {
    const result: { valid: boolean; reason?: string } = verifyReceipt(r1 satisfies Receipt, signer.publicKeyPem);
    expect(result.valid).toBe(true);
  });
});
