import * as crypto from "node:crypto";
import { canonicalJson } from "../canonical-json";

type OneShotHash = (algorithm: string, data: string | Uint8Array, outputEncoding: "hex") => string;
/**
 * Node's one-call hash (20.12 and later): a third of createHash's cost, and no Hash object per call. Read from the
 * namespace: the sandbox's agent runs on a Node without it and falls back to createHash.
 */
const oneShotHash = (crypto as { hash?: OneShotHash }).hash;

/** sha256 as lowercase hex; strings are hashed as UTF-8. */
export function sha256Hex(data: string | Uint8Array): string {
  return oneShotHash ? oneShotHash("sha256", data, "hex") : crypto.createHash("sha256").update(data).digest("hex");
}

/** sha256 hex of the canonical JSON of `value` (so key order or whitespace never changes it). */
export function sha256Json(value: unknown): string {
  return sha256Hex(canonicalJson(value));
}
