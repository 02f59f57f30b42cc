/**
 * What the file tree does to the workspace, as the person in the browser: the same tools an agent has
 * (write_file to create and upload, read_file to download, bash for mkdir / mv / rm), so admission and
 * `file:changed` see these changes like any other. The paths and commands come from lib/workspace-paths.ts.
 */
import { callTool, type Parked, type ToolResult } from "@/lib/api";
import {
  WRITE_FILE_MAX_BYTES,
  checkWorkspacePath,
  formatBytes,
  fromBase64,
  mkdirCommand,
  moveCommand,
  removeCommand,
  toBase64,
} from "@/lib/workspace-paths";

type CallOpts = { onParked?: (parked: Parked) => void };

function failure(result: ToolResult): Error {
  const details = result.details as { stderr?: string } | undefined;
  return new Error(details?.stderr?.trim() || result.error?.message || result.output);
}

async function bash(sessionId: string, command: string, opts: CallOpts): Promise<void> {
  const result = await callTool(sessionId, "bash", { command }, opts);
  const exitCode = (result.details as { exitCode?: number } | undefined)?.exitCode;
  if (!result.ok || (exitCode !== undefined && exitCode !== 0)) throw failure(result);
}

export async function createFile(sessionId: string, path: string, opts: CallOpts = {}): Promise<string> {
  const target = checkWorkspacePath(path);
  const result = await callTool(sessionId, "write_file", { path: target, content: "", mode: "create" }, opts);
  if (!result.ok) throw failure(result);
  return target;
}

export async function createFolder(sessionId: string, path: string, opts: CallOpts = {}): Promise<string> {
  await bash(sessionId, mkdirCommand(path), opts);
  return checkWorkspacePath(path);
}

export async function movePath(sessionId: string, from: string, to: string, opts: CallOpts = {}): Promise<void> {
  await bash(sessionId, moveCommand(from, to), opts);
}

export async function removePath(sessionId: string, path: string, opts: CallOpts = {}): Promise<void> {
  await bash(sessionId, removeCommand(path), opts);
}

/** Refuses before sending anything when the file is over write_file's limit, naming both sizes. */
export async function uploadFile(sessionId: string, path: string, file: Blob, opts: CallOpts = {}): Promise<void> {
  const target = checkWorkspacePath(path);
  if (file.size > WRITE_FILE_MAX_BYTES) {
    throw new Error(
      `${target} is ${formatBytes(file.size)}: uploads are limited to ${formatBytes(WRITE_FILE_MAX_BYTES)} (write_file's limit)`,
    );
  }
  const content = toBase64(new Uint8Array(await file.arrayBuffer()));
  const result = await callTool(sessionId, "write_file", { path: target, content, encoding: "base64" }, opts);
  if (!result.ok) throw failure(result);
}

/** read_file as base64 (any bytes), handed to the browser as a download named after the file. */
export async function downloadFile(sessionId: string, path: string): Promise<void> {
  const target = checkWorkspacePath(path);
  const result = await callTool(sessionId, "read_file", { path: target, encoding: "base64" });
  if (!result.ok) throw failure(result);
  const content = (result.details as { content?: string } | undefined)?.content ?? "";
  const url = URL.createObjectURL(new Blob([fromBase64(content) as BlobPart]));
  const link = document.createElement("a");
  link.href = url;
  link.download = target.split("/").pop() ?? "download";
  document.body.appendChild(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

/**
 * A folder as .tar.gz or .zip, streamed by the runner (GET /api/sessions/:id/download): a plain link, so the browser
 * writes the archive to disk as it arrives instead of this page holding it.
 */
export function downloadFolder(sessionId: string, path: string, format: "tar.gz" | "zip" = "tar.gz"): void {
  const target = checkWorkspacePath(path);
  const query = new URLSearchParams({ path: target, format });
  const link = document.createElement("a");
  link.href = `/api/sessions/${encodeURIComponent(sessionId)}/download?${query}`;
  link.download = `${target.split("/").pop() || "workspace"}.${format}`;
  document.body.appendChild(link);
  link.click();
  link.remove();
}
