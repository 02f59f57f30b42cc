import { lstatSync, readlinkSync } from "node:fs";
import { realpath } from "node:fs/promises";
import path from "node:path";
import { fail } from "../tools/tool-failure-error";

export interface ResolvedPath {
  /** The path as the caller wrote it. */
  input: string;
  /** Real absolute path (every existing symlink resolved); the one to operate on. */
  real: string;
  /** Workspace-relative display path (posix, "." for the root), from the caller's spelling. */
  rel: string;
  /** Whether the full path exists. */
  exists: boolean;
  /** Real path of the root it is confined to: the workspace's, or a read-only root's (resolveForRead). */
  root: string;
  /** The read-only root (as mounted, e.g. /skills) the path is in; `rel` is then absolute, as the caller wrote it. */
  readOnlyRoot?: string;
}

const MAX_SYMLINK_HOPS = 40;

/**
 * The workspace root and the one way to turn a tool's path argument into something to touch.
 * Resolution walks the path one component at a time and follows every symlink itself, so a link that
 * points outside (even a dangling one, for a file about to be created) is caught before any I/O.
 */
export class Workspace {
  readonly root: string;
  /** Absolute roots read_file, grep and glob may read and no tool may write (the session's skills at /skills). */
  readonly readOnlyRoots: readonly string[];
  private realRootPromise: Promise<string> | undefined;

  constructor(root: string, opts: { readOnlyRoots?: readonly string[] } = {}) {
    this.root = path.resolve(root);
    this.readOnlyRoots = (opts.readOnlyRoots ?? []).map((r) => path.resolve(r));
  }

  realRoot(): Promise<string> {
    this.realRootPromise ??= realpath(this.root);
    return this.realRootPromise;
  }

  async resolve(input: string): Promise<ResolvedPath> {
    const realRoot = await this.realRoot();
    let lexical: string;
    if (path.isAbsolute(input)) {
      const normalized = path.resolve(input);
      const base = [this.root, realRoot].find((r) => isInside(normalized, r));
      if (base === undefined) fail("path_escape", `Path escapes workspace root: ${input}`);
      lexical = path.join(realRoot, path.relative(base as string, normalized));
    } else {
      lexical = path.resolve(realRoot, input);
    }
    if (!isInside(lexical, realRoot)) fail("path_escape", `Path escapes workspace root: ${input}`);
    const { real, exists } = resolveReal(realRoot, path.relative(realRoot, lexical));
    if (!isInside(real, realRoot)) fail("path_escape", `Path escapes workspace root: ${input}`);
    return { input, real, rel: toRel(realRoot, lexical), exists, root: realRoot };
  }

  /**
   * Like resolve, and an absolute path inside a read-only root resolves there, by the same real-path walk: a
   * symlink in it that leads out of that root is an escape. Only tools that read call this.
   */
  async resolveForRead(input: string): Promise<ResolvedPath> {
    const readOnlyRoot = this.readOnlyRootOf(input);
    if (readOnlyRoot === undefined) return this.resolve(input);
    const realRoot = await realpath(readOnlyRoot).catch(() =>
      fail("not_found", `Read-only root ${readOnlyRoot} is not mounted in this sandbox: ${input}`),
    );
    const rel = path.relative(readOnlyRoot, path.resolve(input));
    const { real, exists } = resolveReal(realRoot, rel);
    if (!isInside(real, realRoot)) fail("path_escape", `Path escapes read-only root ${readOnlyRoot}: ${input}`);
    const display = rel === "" ? readOnlyRoot : path.posix.join(readOnlyRoot, rel.split(path.sep).join("/"));
    return { input, real, rel: display, exists, root: realRoot, readOnlyRoot };
  }

  /** The read-only root an absolute path lies in (lexically), if any. */
  readOnlyRootOf(input: string): string | undefined {
    if (!path.isAbsolute(input)) return undefined;
    const normalized = path.resolve(input);
    return this.readOnlyRoots.find((r) => isInside(normalized, r));
  }

  /** Resolves a path a tool is about to write; refuses anything inside .git (hooks and internals) or a read-only root. */
  async resolveForWrite(input: string): Promise<ResolvedPath> {
    const readOnlyRoot = this.readOnlyRootOf(input);
    if (readOnlyRoot !== undefined) {
      fail("read_only_path", `Path is in the read-only root ${readOnlyRoot}, which no tool writes: ${input}`);
    }
    const resolved = await this.resolve(input);
    const realRoot = await this.realRoot();
    const segments = [...toRel(realRoot, resolved.real).split("/"), ...resolved.rel.split("/")];
    if (segments.some((s) => s.toLowerCase() === ".git")) {
      fail("forbidden_path", `Writes under .git are refused: ${input}`);
    }
    return resolved;
  }

  /** Workspace-relative posix path of a real absolute path inside the root. */
  async relative(real: string): Promise<string> {
    return toRel(await this.realRoot(), real);
  }
}

export function isInside(candidate: string, root: string): boolean {
  return candidate === root || candidate.startsWith(root.endsWith(path.sep) ? root : root + path.sep);
}

function toRel(root: string, abs: string): string {
  const rel = path.relative(root, abs);
  return rel === "" ? "." : rel.split(path.sep).join("/");
}

/**
 * Walks the path one component at a time, following links, so the result is the real path. Synchronous
 * on purpose: a few lstat calls on a local file system take microseconds, while each async call costs a
 * thread-pool round trip, and this runs on every tool call (the RPC round trip target is 1 ms).
 */
function resolveReal(realRoot: string, relative: string): { real: string; exists: boolean } {
  let pending = relative.split(path.sep).filter((s) => s !== "" && s !== ".");
  let current = realRoot;
  let hops = 0;
  while (pending.length > 0) {
    const [component, ...rest] = pending as [string, ...string[]];
    pending = rest;
    const next = path.join(current, component);
    let isLink: boolean;
    try {
      isLink = lstatSync(next).isSymbolicLink();
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === "ENOENT" || code === "ENOTDIR") return { real: path.join(next, ...pending), exists: false };
      throw error;
    }
    if (!isLink) {
      current = next;
      continue;
    }
    if (++hops > MAX_SYMLINK_HOPS) fail("path_loop", `Too many levels of symbolic links: ${next}`);
    // Restart from the link target; an absolute target restarts from "/".
    const target = path.resolve(current, readlinkSync(next));
    pending = [...target.split(path.sep).filter((s) => s !== ""), ...pending];
    current = path.parse(target).root;
  }
  return { real: current, exists: true };
}
