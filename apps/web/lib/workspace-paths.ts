/**
 * Workspace paths as the file tree hands them to the tools, and the shell commands it builds from them.
 * Paths are checked before any command is built (relative, no `..`, no NUL) and every argument is
 * single-quoted and `./`-prefixed, so a command can never reach outside the workspace root nor read a
 * name as an option, whatever spaces, quotes or `$` it holds.
 */
/** write_file refuses content over this many bytes (docs/tools.md). */
export const WRITE_FILE_MAX_BYTES = 8 * 1024 * 1024;

/** A workspace-relative path as the tools take it, or an Error naming what is wrong with it. */
export function checkWorkspacePath(raw: string, field = "path"): string {
  const path = raw.trim().replace(/\/+$/, "");
  if (!path) throw new Error(`${field} is empty`);
  if (path.startsWith("/")) throw new Error(`${field} must be relative to the workspace: ${JSON.stringify(raw)}`);
  if (path.includes("\0")) throw new Error(`${field} contains a NUL byte: ${JSON.stringify(raw)}`);
  const parts = path.split("/");
  if (parts.some((part) => part === "..")) throw new Error(`${field} may not contain "..": ${JSON.stringify(raw)}`);
  if (parts.some((part) => part === "")) throw new Error(`${field} has an empty folder name: ${JSON.stringify(raw)}`);
  return parts.filter((part) => part !== ".").join("/") || ".";
}

/** One argument for sh: single-quoted, with each `'` written as `'\''`. */
export function shellQuote(value: string): string {
  return `'${value.replaceAll("'", `'\\''`)}'`;
}

/** The `./`-prefixed, quoted form, so a name starting with `-` is never read as an option. */
const arg = (path: string) => shellQuote(`./${path}`);

export function mkdirCommand(path: string): string {
  return `mkdir -p -- ${arg(checkWorkspacePath(path))}`;
}

/** `mv -n`: refuses to replace an existing target (checked first, so the failure says so). */
export function moveCommand(from: string, to: string): string {
  const source = checkWorkspacePath(from, "from");
  const target = checkWorkspacePath(to, "to");
  if (source === ".") throw new Error("from may not be the workspace root");
  if (target === source || target.startsWith(`${source}/`))
    throw new Error(`Cannot move ${source} into itself (${target})`);
  return `if [ -e ${arg(target)} ] || [ -L ${arg(target)} ]; then echo "Already exists: ${target.replaceAll(/["$`\\]/g, "\\$&")}" >&2; exit 1; fi; mkdir -p -- "$(dirname -- ${arg(target)})" && mv -n -- ${arg(source)} ${arg(target)}`;
}

export function removeCommand(path: string): string {
  const target = checkWorkspacePath(path);
  if (target === ".") throw new Error("Refusing to delete the workspace root");
  return `rm -rf -- ${arg(target)}`;
}

/** The folder a file or folder sits in ("" at the root). */
export const parentOf = (path: string) => (path.includes("/") ? path.slice(0, path.lastIndexOf("/")) : "");
export const join = (folder: string, name: string) => (folder ? `${folder}/${name}` : name);

/** Base64 of bytes, in slices so a large file does not overflow the argument list of fromCharCode. */
export function toBase64(bytes: Uint8Array): string {
  let binary = "";
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary);
}

export function fromBase64(text: string): Uint8Array {
  const binary = atob(text);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}
