import { statSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { fail } from "../tools/tool-failure-error";
import type { ResolvedPath } from "./workspace";

const fatalDecoder = new TextDecoder("utf-8", { fatal: true });

/** Stats a path a tool wants to read as a file, with the spec's error texts. */
export async function statFile(file: ResolvedPath, maxBytes?: number): Promise<{ size: number; mode: number }> {
  let info;
  try {
    // Synchronous: one stat is microseconds; an async one costs a thread-pool round trip per call.
    info = statSync(file.real);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR") fail("not_found", `File not found: ${file.input}`);
    throw error;
  }
  if (info.isDirectory()) fail("is_directory", `Path is a directory: ${file.input}`);
  if (!info.isFile()) fail("not_a_file", `Not a regular file: ${file.input}`);
  if (maxBytes !== undefined && info.size > maxBytes) {
    fail("too_large", `File too large: ${file.input} is ${info.size} bytes (limit ${maxBytes} bytes)`);
  }
  return { size: info.size, mode: info.mode & 0o7777 };
}

/** Decodes bytes as UTF-8 text, refusing binary (NUL bytes) and invalid UTF-8 with clear errors. */
export function decodeText(bytes: Uint8Array, displayPath: string, hint = ""): string {
  if (bytes.includes(0)) fail("binary_file", `Binary file: ${displayPath}${hint}`);
  try {
    return fatalDecoder.decode(bytes);
  } catch {
    return fail("invalid_utf8", `File is not valid UTF-8: ${displayPath}${hint}`);
  }
}

export async function readTextFile(file: ResolvedPath, maxBytes: number): Promise<{ text: string; mode: number }> {
  const { mode } = await statFile(file, maxBytes);
  return { text: decodeText(await readFile(file.real), file.input), mode };
}

/** Splits text into lines that keep their terminators, so joining them gives back the exact bytes. */
export function splitLinesKeepEnds(text: string): string[] {
  return text.match(/[^\n]*\n|[^\n]+$/g) ?? [];
}
