import { createHash } from "node:crypto";
import { createReadStream } from "node:fs";
import { stat } from "node:fs/promises";
import { RUN_SCRIPT_MAX_HASH_BYTES, type RunScriptFileHash } from "@berth/protocol";

/** sha256 of a file up to 64 MiB; larger, missing or non-regular files get a note instead of a hash. */
export async function hashFile(real: string, displayPath: string): Promise<RunScriptFileHash> {
  const info = await stat(real).catch(() => undefined);
  if (!info) return { path: displayPath, sha256: null, bytes: null, note: "absent" };
  if (!info.isFile()) return { path: displayPath, sha256: null, bytes: null, note: "not-a-file" };
  if (info.size > RUN_SCRIPT_MAX_HASH_BYTES)
    return { path: displayPath, sha256: null, bytes: info.size, note: "too-large" };
  const hash = createHash("sha256");
  let bytes = 0;
  for await (const chunk of createReadStream(real)) {
    hash.update(chunk as Buffer);
    bytes += (chunk as Buffer).length;
  }
  return { path: displayPath, sha256: hash.digest("hex"), bytes };
}
