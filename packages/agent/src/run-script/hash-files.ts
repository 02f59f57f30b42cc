import { open } from "node:fs/promises";
import {
  formatIssues,
  FILE_PREVIEW_MAX_BYTES,
  FilesHashParamsSchema,
  type FilesHashResult,
  type RunScriptFileHash,
} from "@berth/protocol";
import type { Workspace } from "../workspace/workspace";
import { hashFile } from "./hash-file";

/** A path that does not resolve inside the workspace: named in the RPC's error. */
export class HashParamsError extends Error {}

async function hashPath(workspace: Workspace, asked: string): Promise<RunScriptFileHash> {
  const resolved = await workspace.resolve(asked).catch(() => undefined);
  if (!resolved)
    throw new HashParamsError(`files.hash: paths must resolve inside the workspace (got ${JSON.stringify(asked)})`);
  return hashFile(resolved.real, asked);
}

/** The first bytes of a file as text; the approval text shows them to the operator. */
async function previewOf(workspace: Workspace, asked: string): Promise<FilesHashResult["preview"]> {
  const resolved = await workspace.resolve(asked).catch(() => undefined);
  if (!resolved?.exists) return undefined;
  const handle = await open(resolved.real, "r").catch(() => undefined);
  if (!handle) return undefined;
  try {
    const buffer = Buffer.alloc(FILE_PREVIEW_MAX_BYTES + 1);
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
    const truncated = bytesRead > FILE_PREVIEW_MAX_BYTES;
    return {
      path: asked,
      text: buffer.subarray(0, Math.min(bytesRead, FILE_PREVIEW_MAX_BYTES)).toString("utf8"),
      truncated,
    };
  } finally {
    await handle.close();
  }
}

/** The files.hash RPC: read-only sha256 of each path (and one preview), for the runner to bind into an approval. */
export async function hashFiles(workspace: Workspace, params: unknown): Promise<FilesHashResult> {
  const parsed = FilesHashParamsSchema.safeParse(params);
  if (!parsed.success)
    throw new HashParamsError(
      `Invalid files.hash params: ${formatIssues(parsed.error, "params")}`,
    );
  const files = await Promise.all(parsed.data.paths.map((p) => hashPath(workspace, p)));
  const preview = parsed.data.preview === undefined ? undefined : await previewOf(workspace, parsed.data.preview);
  return { files, ...(preview ? { preview } : {}) };
}

/** `<tool>: <path> changed since approval (approved sha256 …, now …)`; absent files show as "absent". */
export function changedMessage(tool: string, path: string, approved: string | null, now: string | null): string {
  return `${tool}: ${path} changed since approval (approved sha256 ${approved ?? "absent"}, now ${now ?? "absent"})`;
}

/**
 * Compares each file the approval bound with what is there now; the first that differs is named. A
 * file over the hash limit has no sha256 and so never matches a bound one.
 */
export async function firstChanged(
  workspace: Workspace,
  tool: string,
  expect: Record<string, string | null>,
  skip: ReadonlySet<string> = new Set(),
): Promise<string | undefined> {
  for (const [path, approved] of Object.entries(expect)) {
    if (skip.has(path)) continue;
    const now = await hashPath(workspace, path).catch(() => undefined);
    const current = now?.note === "absent" ? null : (now?.sha256 ?? "unreadable");
    if (current !== approved) return changedMessage(tool, path, approved, current);
  }
  return undefined;
}
