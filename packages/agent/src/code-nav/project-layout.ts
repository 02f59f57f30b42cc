import path from "node:path";

/** A package.json of the workspace (monorepo packages resolve by name). */
export interface JsPackage {
  dir: string;
  manifest: string;
  name?: string;
  main?: string;
  module?: string;
  types?: string;
  source?: string;
  bin?: unknown;
  exports?: unknown;
}

/**
 * What resolution needs to know about the workspace beyond the file list: its package.json packages by
 * name, Go modules by path, Python source roots, Rust crate roots. Rebuilt when a manifest, an
 * `__init__.py` or the file set changes.
 */
export class ProjectLayout {
  readonly files: ReadonlySet<string>;
  readonly jsPackages: readonly JsPackage[];
  readonly jsPackagesByName: ReadonlyMap<string, JsPackage>;
  /** Go module path → its folder ("." for the root). */
  readonly goModules: ReadonlyMap<string, string>;
  /** Folders from which an absolute Python import resolves: ".", "src" and the parent of every top package. */
  readonly pythonRoots: readonly string[];
  /** Folders holding a Cargo.toml. */
  readonly crateRoots: readonly string[];
  /** Folders that hold at least one file (Go packages resolve to folders). */
  readonly dirs: ReadonlySet<string>;
  /** `C.java` → every path ending in it. */
  readonly byBaseName: ReadonlyMap<string, readonly string[]>;

  constructor(files: ReadonlySet<string>, manifests: { jsPackages: JsPackage[]; goModules: Map<string, string> }) {
    this.files = files;
    this.jsPackages = [...manifests.jsPackages].sort(
      (a, b) => depth(a.dir) - depth(b.dir) || a.dir.localeCompare(b.dir),
    );
    this.jsPackagesByName = new Map(this.jsPackages.filter((p) => p.name).map((p) => [p.name as string, p]));
    this.goModules = manifests.goModules;
    const dirs = new Set<string>();
    const byBaseName = new Map<string, string[]>();
    const roots = new Set([".", "src"]);
    const crates: string[] = [];
    for (const file of files) {
      const dir = dirOf(file);
      dirs.add(dir);
      const base = file.slice(dir === "." ? 0 : dir.length + 1);
      if (base.endsWith(".java")) byBaseName.set(base, [...(byBaseName.get(base) ?? []), file]);
      if (base === "Cargo.toml") crates.push(dir);
      if (base === "__init__.py") {
        let top = dir;
        while (top !== "." && files.has(join(dirOf(top), "__init__.py"))) top = dirOf(top);
        roots.add(dirOf(top));
      }
    }
    this.dirs = dirs;
    this.byBaseName = byBaseName;
    this.pythonRoots = [...roots];
    this.crateRoots = crates.sort((a, b) => depth(b) - depth(a));
  }
}

export function depth(dir: string): number {
  return dir === "." ? 0 : dir.split("/").length;
}

export function dirOf(file: string): string {
  const slash = file.lastIndexOf("/");
  return slash === -1 ? "." : file.slice(0, slash);
}

/** Joins and normalises posix workspace paths ("." for the root); escapesRoot says whether it left the root. */
export function join(...parts: string[]): string {
  const joined = path.posix.normalize(parts.filter((p) => p !== "." && p !== "").join("/") || ".");
  return joined.replace(/\/$/, "") || ".";
}

export function escapesRoot(rel: string): boolean {
  return rel === ".." || rel.startsWith("../") || rel.startsWith("/");
}
