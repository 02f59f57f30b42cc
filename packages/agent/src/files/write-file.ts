import { sha256Hex } from "@berth/protocol/node";
import { readFile, stat } from "node:fs/promises";
import { WRITE_FILE_MAX_BYTES, WriteFileArgsSchema, type WriteFileDetails } from "@berth/protocol";
import { defineTool, okResult } from "../tools/tool-context";
import { fail } from "../tools/tool-failure-error";
import { atomicWrite } from "../workspace/atomic-write";

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/** Decodes write content, refusing malformed base64 and anything over the 8 MiB cap. */
export function decodeContent(content: string, encoding: "utf8" | "base64", field = "content"): Buffer {
  let data: Buffer;
  if (encoding === "base64") {
    const compact = content.replace(/\s+/g, "");
    if (compact.length % 4 === 1 || !BASE64.test(compact)) fail("invalid_args", `${field}: not valid base64`);
    data = Buffer.from(compact, "base64");
  } else {
    data = Buffer.from(content, "utf8");
  }
  if (data.length > WRITE_FILE_MAX_BYTES) {
    fail("too_large", `${field}: ${data.length} bytes is over the limit of ${WRITE_FILE_MAX_BYTES} bytes (8 MiB)`);
  }
  return data;
}

/**
 * A save's precondition: the file on disk still has the bytes the writer saw. Fails with `conflict` naming
 * the path and both hashes ("absent" for a file that is gone); null/undefined expected means no check.
 */
export async function assertUnchanged(realPath: string, displayPath: string, expected: string | null | undefined) {
  if (expected === null || expected === undefined) return;
  const actual = await readFile(realPath).then(sha256Hex, (error: NodeJS.ErrnoException) => {
    if (error.code === "ENOENT") return "absent";
    throw error;
  });
  if (actual !== expected) {
    fail(
      "conflict",
      `${displayPath} changed on disk: expectedSha256 ${expected}, actual sha256 ${actual}; nothing was written`,
      { path: displayPath, expectedSha256: expected, actualSha256: actual },
    );
  }
}

export const writeFileTool = defineTool({
  name: "write_file",
  schema: WriteFileArgsSchema,
  async run(args, { workspace }) {
    const data = decodeContent(args.content, args.encoding);
    const file = await workspace.resolveForWrite(args.path);
    const existing = await stat(file.real).catch(() => undefined);
    if (existing?.isDirectory()) fail("is_directory", `Path is a directory: ${args.path}`);
    if (existing && args.mode === "create") fail("exists", `File already exists: ${args.path}`);
    if (existing && !existing.isFile()) fail("not_a_file", `Not a regular file: ${args.path}`);

    await assertUnchanged(file.real, file.rel, args.expectedSha256);

    const appended = args.mode === "append" && existing !== undefined;
    const bytes = appended ? Buffer.concat([await readFile(file.real), data]) : data;
    try {
      await atomicWrite(file.real, bytes, {
        exclusive: args.mode === "create",
        // Checked again with the new bytes already on disk, so only the rename itself can race.
        beforeCommit: () => assertUnchanged(file.real, file.rel, args.expectedSha256),
      });
    } catch (error) {
      // Lost a race with another writer between the check and the link.
      if ((error as NodeJS.ErrnoException).code === "EEXIST") fail("exists", `File already exists: ${args.path}`);
      throw error;
    }
    const details: WriteFileDetails = {
      path: file.rel,
      mode: args.mode,
      created: existing === undefined,
      appended,
      bytesWritten: data.length,
      sha256: sha256Hex(bytes),
    };
    // The real path shows where a symlinked name actually landed.
    return okResult(details, { realPath: file.real });
  },
});
