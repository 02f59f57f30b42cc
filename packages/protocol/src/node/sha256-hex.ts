import { createHash } from "node:crypto";
import { canonicalJson } from "../canonical-json";

/** sha256 as lowercase hex; strings are hashed as UTF-8. */
export function sha256Hex(data: string | Uint8Array): string {
  return createHash("sha256").update(data).digest("hex");
}

/** sha256 hex of the canonical JSON of `value` (so key order or whitespace never changes it). */
export function sha256Json(value: unknown): string {
  return sha256Hex(canonicalJson(value));
}
