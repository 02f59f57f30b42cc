import { type Dirent, type FSWatcher, type Stats, watch } from "node:fs";
import { lstat, readFile, readdir } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import type { AgentConfig } from "../config";
import { type RawImport, importLanguageOf, parseImports } from "./parse-imports";
import { type JsPackage, ProjectLayout, dirOf, join } from "./project-layout";
import { type ResolvedImports, resolveImports } from "./resolve-imports";
import { CtagsServer, type IndexedSymbol, runCtags } from "./run-ctags";
import { IGNORED_DIRS, MANIFESTS, MAX_PARSED_BYTES, baseName, fileIdentity, isSource, mapLimit } from "./source-files";

export { fileIdentity } from "./source-files";
const READ_CONCURRENCY = 32;
/** Up to this many changed files go through the long-lived ctags; more start a batch run. */
const INTERACTIVE_MAX_FILES = 32;

interface FileEntry {
  identity: string;
  symbols: IndexedSymbol[];
  /** Read on the first deps/dependents question, not while building: most sessions never ask. */
  imports?: RawImport[];
}

export interface RefreshStats {
  /** Files parsed by this refresh (0 when nothing changed). */
  parsed: number;
  removed: number;
  ms: number;
  full: boolean;
}

/**
 * The code index of one workspace, built inside the container: every file's path (for `path`), every
 * source file's definitions (Universal Ctags) and, once asked for, its imports (parse-imports), keyed by
 * file identity.
 * Folders are watched (inotify); a query first re-reads only what the watchers marked, so an update after
 * one changed file costs one ctags run. Where watching fails (inotify limits), every query re-stats all
 * files instead: slower, never stale.
 */
export class CodeIndex {
  private readonly root: string;
  private readonly config: AgentConfig;
  private readonly files = new Set<string>();
  private readonly entries = new Map<string, FileEntry>();
  private readonly byName = new Map<string, IndexedSymbol[]>();
  private readonly watchers = new Map<string, FSWatcher>();
  private readonly dirtyPaths = new Set<string>();
  private readonly dirtyDirs = new Set<string>();
  private built = false;
  private watchFailed = false;
  private layoutCache: ProjectLayout | undefined;
  private readonly resolvedCache = new Map<string, ResolvedImports>();
  private dependentsCache: Map<string, { path: string; line: number; specifier: string }[]> | undefined;
  private queue: Promise<unknown> = Promise.resolve();
  private readonly ctags: CtagsServer;
  /** During a full scan: every file the walk met (the rest are gone). */
  private scanSeen: Set<string> | undefined;

  /** `watch: false` takes the re-stat path from the start, as where inotify is unavailable. */
  constructor(root: string, config: AgentConfig, options: { watch?: boolean } = {}) {
    this.root = root;
    this.config = config;
    this.ctags = new CtagsServer(config, root);
    this.watchFailed = options.watch === false;
  }

  /** Brings the index up to date with the workspace; calls are serialised. */
  refresh(): Promise<RefreshStats> {
    const run = this.queue.then(() => this.refreshNow());
    this.queue = run.catch(() => undefined);
    return run;
  }

  private async refreshNow(): Promise<RefreshStats> {
    const started = performance.now();
    // A change made just before this call has its inotify event queued already: let it be delivered first.
    await new Promise((resolve) => setImmediate(resolve));
    if (!this.built || this.watchFailed) {
      const stats = await this.fullScan();
      this.built = true;
      return { ...stats, ms: performance.now() - started, full: true };
    }
    if (this.dirtyPaths.size === 0 && this.dirtyDirs.size === 0)
      return { parsed: 0, removed: 0, ms: performance.now() - started, full: false };
    const paths = [...this.dirtyPaths];
    const dirs = [...this.dirtyDirs];
    this.dirtyPaths.clear();
    this.dirtyDirs.clear();
    const changed = new Map<string, Stats>();
    let removed = 0;
    for (const dir of dirs) {
      const listed = await readdir(path.join(this.root, dir), { withFileTypes: true }).catch(() => [] as Dirent[]);
      const present = new Set(listed.map((e) => join(dir, e.name)));
      for (const file of this.files) if (dirOf(file) === dir && !present.has(file)) paths.push(file);
      for (const known of this.watchers.keys())
        if (known !== dir && dirOf(known) === dir && !present.has(known)) paths.push(known);
      paths.push(...present);
    }
    for (const rel of paths) {
      const info = await lstat(path.join(this.root, rel)).catch(() => undefined);
      if (!info) {
        removed += this.forget(rel);
      } else if (info.isDirectory()) {
        if (!this.watchers.has(rel) && !IGNORED_DIRS.has(baseName(rel))) await this.walk(rel, changed);
      } else if (info.isFile()) {
        this.noteFile(rel, info, changed);
      }
    }
    const parsed = await this.parse(changed);
    return { parsed, removed, ms: performance.now() - started, full: false };
  }

  /** Walks everything, re-parsing files whose identity changed and forgetting files that are gone. */
  private async fullScan(): Promise<{ parsed: number; removed: number }> {
    const seen = new Set<string>();
    this.scanSeen = seen;
    const changed = new Map<string, Stats>();
    try {
      await this.walk(".", changed);
    } finally {
      this.scanSeen = undefined;
    }
    let removed = 0;
    for (const file of [...this.files]) {
      if (seen.has(file)) continue;
      this.files.delete(file);
      this.dropEntry(file);
      removed++;
    }
    if (removed > 0) this.invalidateLayout();
    return { parsed: await this.parse(changed), removed };
  }

  private async walk(dir: string, changed: Map<string, Stats>): Promise<void> {
    const abs = path.join(this.root, dir);
    this.watchDir(dir);
    let listed: Dirent[];
    try {
      listed = await readdir(abs, { withFileTypes: true });
    } catch {
      return; // unreadable folder: skipped, as glob does
    }
    const subdirs: Promise<void>[] = [];
    const stats: Promise<void>[] = [];
    for (const entry of listed) {
      const rel = join(dir, entry.name);
      if (entry.isDirectory()) {
        if (!IGNORED_DIRS.has(entry.name)) subdirs.push(this.walk(rel, changed));
      } else if (entry.isFile()) {
        if (isSource(rel) || MANIFESTS.has(entry.name)) {
          stats.push(
            lstat(path.join(this.root, rel)).then(
              (info) => this.noteFile(rel, info, changed),
              () => undefined,
            ),
          );
        } else {
          this.scanSeen?.add(rel);
          if (!this.files.has(rel)) {
            this.files.add(rel);
            this.invalidateLayout();
          }
        }
      }
    }
    await Promise.all([...stats, ...subdirs]);
  }

  private noteFile(rel: string, info: Stats, changed: Map<string, Stats>): void {
    this.scanSeen?.add(rel);
    if (!this.files.has(rel)) {
      this.files.add(rel);
      this.invalidateLayout();
    }
    if (!isSource(rel) && !MANIFESTS.has(baseName(rel))) return;
    if (this.entries.get(rel)?.identity === fileIdentity(info)) return;
    changed.set(rel, info);
  }

  private watchDir(dir: string): void {
    if (this.watchFailed || this.watchers.has(dir)) return;
    try {
      const watcher = watch(path.join(this.root, dir), { persistent: false }, (_event, name) => {
        if (name) this.dirtyPaths.add(join(dir, name.toString()));
        else this.dirtyDirs.add(dir);
      });
      watcher.on("error", () => this.stopWatching());
      this.watchers.set(dir, watcher);
    } catch {
      this.stopWatching();
    }
  }

  /** From here on every query re-stats the whole tree (see the class comment). */
  private stopWatching(): void {
    this.watchFailed = true;
    for (const watcher of this.watchers.values()) watcher.close();
    this.watchers.clear();
  }

  /** Forgets a file, or a folder and everything under it; returns how many files went. */
  private forget(rel: string): number {
    let count = 0;
    const prefix = `${rel}/`;
    for (const file of [...this.files]) {
      if (file !== rel && !file.startsWith(prefix)) continue;
      this.files.delete(file);
      this.dropEntry(file);
      count++;
    }
    for (const [dir, watcher] of [...this.watchers]) {
      if (dir === rel || dir.startsWith(prefix)) {
        watcher.close();
        this.watchers.delete(dir);
      }
    }
    if (count > 0) this.invalidateLayout();
    return count;
  }

  private dropEntry(file: string): void {
    const entry = this.entries.get(file);
    if (!entry) return;
    this.entries.delete(file);
    this.resolvedCache.delete(file);
    this.dependentsCache = undefined;
    for (const symbol of entry.symbols) {
      const list = this.byName.get(symbol.name);
      if (!list) continue;
      const kept = list.filter((s) => s.path !== file);
      if (kept.length > 0) this.byName.set(symbol.name, kept);
      else this.byName.delete(symbol.name);
    }
    if (MANIFESTS.has(baseName(file))) this.invalidateLayout();
  }

  private invalidateLayout(): void {
    this.layoutCache = undefined;
    this.resolvedCache.clear();
    this.dependentsCache = undefined;
  }

  /** ctags over the changed source files: the long-lived server for a few, batch runs (one per spare core) for many. */
  private async parse(changed: Map<string, Stats>): Promise<number> {
    if (changed.size === 0) return 0;
    const sources = [...changed]
      .filter(([rel, info]) => isSource(rel) && info.size <= MAX_PARSED_BYTES && !rel.includes("\n"))
      .map(([rel]) => rel);
    let tagged: IndexedSymbol[];
    if (sources.length <= INTERACTIVE_MAX_FILES) {
      tagged = [];
      for (const rel of sources) tagged.push(...(await this.ctags.tag(rel)));
    } else {
      const chunks = Math.max(1, Math.min(os.cpus().length - 1, Math.ceil(sources.length / 2000)));
      const size = Math.ceil(sources.length / chunks);
      const runs = Array.from({ length: chunks }, (_, i) =>
        runCtags(this.config, this.root, sources.slice(i * size, (i + 1) * size)),
      );
      tagged = (await Promise.all(runs)).flat();
    }
    const symbolsByFile = new Map<string, IndexedSymbol[]>();
    for (const symbol of tagged) {
      const list = symbolsByFile.get(symbol.path);
      if (list) list.push(symbol);
      else symbolsByFile.set(symbol.path, [symbol]);
    }
    for (const [rel, info] of changed) {
      this.dropEntry(rel);
      const symbols = (symbolsByFile.get(rel) ?? []).sort((a, b) => a.line - b.line);
      this.entries.set(rel, { identity: fileIdentity(info), symbols });
      for (const symbol of symbols) {
        const list = this.byName.get(symbol.name);
        if (list) list.push(symbol);
        else this.byName.set(symbol.name, [symbol]);
      }
      if (MANIFESTS.has(baseName(rel))) this.invalidateLayout();
    }
    this.dependentsCache = undefined;
    return changed.size;
  }

  /** Reads and scans the imports of files not scanned since they last changed. */
  private async loadImports(files: readonly string[]): Promise<void> {
    const missing = files.filter((rel) => {
      const entry = this.entries.get(rel);
      return entry !== undefined && entry.imports === undefined;
    });
    await mapLimit(missing, READ_CONCURRENCY, async (rel) => {
      const language = importLanguageOf(rel);
      const text = language ? await readFile(path.join(this.root, rel), "utf8").catch(() => "") : "";
      const entry = this.entries.get(rel);
      if (entry && entry.imports === undefined)
        entry.imports = language && text.length <= MAX_PARSED_BYTES ? parseImports(text, language) : [];
    });
  }

  // ---- queries (call refresh() first) ----

  allFiles(): string[] {
    return [...this.files];
  }

  hasFile(rel: string): boolean {
    return this.files.has(rel);
  }

  symbolsNamed(name: string): readonly IndexedSymbol[] {
    return this.byName.get(name) ?? [];
  }

  /** Case-insensitive matches, for when no definition has the exact name. */
  symbolsNamedLoosely(name: string): IndexedSymbol[] {
    const lower = name.toLowerCase();
    const out: IndexedSymbol[] = [];
    for (const [key, list] of this.byName) if (key.toLowerCase() === lower) out.push(...list);
    return out;
  }

  outline(rel: string): readonly IndexedSymbol[] | undefined {
    return this.entries.get(rel)?.symbols;
  }

  isIndexed(rel: string): boolean {
    return this.entries.has(rel);
  }

  async layout(): Promise<ProjectLayout> {
    if (this.layoutCache) return this.layoutCache;
    const jsPackages: JsPackage[] = [];
    const goModules = new Map<string, string>();
    for (const file of this.files) {
      const base = baseName(file);
      if (base !== "package.json" && base !== "go.mod") continue;
      const text = await readFile(path.join(this.root, file), "utf8").catch(() => "");
      if (base === "go.mod") {
        const modulePath = /^module\s+(\S+)/m.exec(text)?.[1];
        if (modulePath) goModules.set(modulePath, dirOf(file));
        continue;
      }
      let manifest: Record<string, unknown> = {};
      try {
        const parsed: unknown = JSON.parse(text);
        if (parsed && typeof parsed === "object" && !Array.isArray(parsed))
          manifest = parsed as Record<string, unknown>;
      } catch {
        // A broken package.json still marks a package folder; its fields are unknown.
      }
      const str = (key: string) => (typeof manifest[key] === "string" ? (manifest[key] as string) : undefined);
      const pkg: JsPackage = { dir: dirOf(file), manifest: file };
      for (const key of ["name", "main", "module", "types", "source"] as const) {
        const value = str(key);
        if (value !== undefined) pkg[key] = value;
      }
      if (manifest.bin !== undefined) pkg.bin = manifest.bin;
      if (manifest.exports !== undefined) pkg.exports = manifest.exports;
      jsPackages.push(pkg);
    }
    this.layoutCache = new ProjectLayout(this.files, { jsPackages, goModules });
    return this.layoutCache;
  }

  async importsOf(rel: string): Promise<ResolvedImports> {
    await this.loadImports([rel]);
    const layout = await this.layout();
    let resolved = this.resolvedCache.get(rel);
    if (!resolved) {
      resolved = resolveImports(layout, rel, this.entries.get(rel)?.imports ?? []);
      this.resolvedCache.set(rel, resolved);
    }
    return resolved;
  }

  /** Files that import `rel` (for a Go file: its package folder), sorted by path then line. */
  async dependentsOf(rel: string): Promise<{ path: string; line: number; specifier: string }[]> {
    if (!this.dependentsCache) {
      await this.loadImports([...this.entries.keys()]);
      const reverse = new Map<string, { path: string; line: number; specifier: string }[]>();
      for (const file of this.entries.keys()) {
        for (const edge of (await this.importsOf(file)).internal) {
          const list = reverse.get(edge.path) ?? [];
          list.push({ path: file, line: edge.line, specifier: edge.specifier });
          reverse.set(edge.path, list);
        }
      }
      for (const list of reverse.values())
        list.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : a.line - b.line));
      this.dependentsCache = reverse;
    }
    const direct = this.dependentsCache.get(rel) ?? [];
    const viaFolder = rel.endsWith(".go") ? (this.dependentsCache.get(dirOf(rel)) ?? []) : [];
    return [...direct, ...viaFolder];
  }

  close(): void {
    this.ctags.close();
    for (const watcher of this.watchers.values()) watcher.close();
    this.watchers.clear();
  }
}
