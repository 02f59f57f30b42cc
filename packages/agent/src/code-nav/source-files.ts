import type { Stats } from "node:fs";
import { GLOB_IGNORED_DIRS } from "@berth/protocol";

// Which files the code index reads, and how it knows one has not changed.

/** Files ctags is given: the languages code_nav promises plus the common ones ctags reads as well. */
export const SOURCE_EXTENSIONS = new Set(
  "ts tsx mts cts js jsx mjs cjs py pyi go rs java kt scala c h cc cpp cxx hh hpp cs rb php swift lua sh pl pm ex exs erl hs ml"
    .split(" ")
    .map((e) => `.${e}`),
);
/** Read for package layout; a change to one re-resolves every import. */
export const MANIFESTS = new Set(["package.json", "go.mod", "Cargo.toml", "__init__.py"]);
export const IGNORED_DIRS = new Set<string>([".git", "__pycache__", ...GLOB_IGNORED_DIRS]);
/** Minified bundles and generated blobs: listed for `path`, not parsed. */
export const MAX_PARSED_BYTES = 2 * 1024 * 1024;

/** dev, inode, mtime and size: a file whose identity is unchanged is not parsed again. */
export function fileIdentity(info: Stats): string {
  return `${info.dev}:${info.ino}:${info.mtimeMs}:${info.size}`;
}

export function isSource(rel: string): boolean {
  const dot = rel.lastIndexOf(".");
  return dot !== -1 && SOURCE_EXTENSIONS.has(rel.slice(dot));
}

export function baseName(rel: string): string {
  return rel.slice(rel.lastIndexOf("/") + 1);
}

export async function mapLimit<T>(items: readonly T[], limit: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await fn(items[next++] as T);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}
