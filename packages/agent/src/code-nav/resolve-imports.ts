import type { CodeNavImport } from "@berth/protocol";
import { type ImportLanguage, type RawImport, importLanguageOf } from "./parse-imports";
import { type JsPackage, type ProjectLayout, dirOf, escapesRoot, join } from "./project-layout";

export interface ResolvedImports {
  internal: CodeNavImport[];
  external: string[];
  unresolved: string[];
}

const JS_EXTENSIONS = [".ts", ".tsx", ".d.ts", ".mts", ".cts", ".js", ".jsx", ".mjs", ".cjs"];
/** TypeScript ESM writes `./x.js` for `./x.ts`. */
const JS_SWAPS: Readonly<Record<string, string[]>> = {
  ".js": [".ts", ".tsx"],
  ".mjs": [".mts"],
  ".cjs": [".cts"],
  ".jsx": [".tsx"],
};
const RUST_BUILTIN_CRATES = new Set(["std", "core", "alloc", "self", "super", "crate"]);

function firstFile(layout: ProjectLayout, candidates: string[]): string | undefined {
  return candidates.find((c) => !escapesRoot(c) && layout.files.has(c));
}

function jsCandidates(base: string): string[] {
  const out = [base];
  const ext = Object.keys(JS_SWAPS).find((e) => base.endsWith(e));
  if (ext) for (const swap of JS_SWAPS[ext] as string[]) out.push(base.slice(0, -ext.length) + swap);
  for (const e of JS_EXTENSIONS) out.push(base + e);
  for (const e of JS_EXTENSIONS) out.push(`${base}/index${e}`);
  return out;
}

/** An export target string from a conditions object: types, then import/default/require, nested. */
function exportTarget(value: unknown): string | undefined {
  if (typeof value === "string") return value;
  if (Array.isArray(value)) return value.map(exportTarget).find(Boolean);
  if (value && typeof value === "object") {
    const record = value as Record<string, unknown>;
    for (const key of ["source", "types", "import", "default", "require", "node"]) {
      const found = exportTarget(record[key]);
      if (found) return found;
    }
  }
  return undefined;
}

/** A built target (`dist/x.js`) maps back to its source (`src/x.ts`) when that is what the workspace holds. */
export function targetFile(layout: ProjectLayout, pkg: JsPackage, target: string): string | undefined {
  const rel = join(pkg.dir, target);
  const src = rel.replace(/(^|\/)(dist|build|lib|out)\//, "$1src/").replace(/\.d\.ts$/, ".ts");
  return firstFile(layout, [...jsCandidates(rel), ...jsCandidates(src)]);
}

function resolveJsPackage(layout: ProjectLayout, pkg: JsPackage, subpath: string): string | undefined {
  const exportsMap = pkg.exports;
  const key = subpath === "" ? "." : `./${subpath}`;
  if (exportsMap !== undefined) {
    const entry =
      typeof exportsMap === "object" &&
      exportsMap !== null &&
      !Array.isArray(exportsMap) &&
      Object.keys(exportsMap).some((k) => k.startsWith("."))
        ? (exportsMap as Record<string, unknown>)[key]
        : key === "."
          ? exportsMap
          : undefined;
    const target = exportTarget(entry);
    if (target) {
      const found = targetFile(layout, pkg, target);
      if (found) return found;
    }
  }
  if (subpath === "") {
    for (const field of [pkg.source, pkg.types, pkg.module, pkg.main]) {
      if (field) {
        const found = targetFile(layout, pkg, field);
        if (found) return found;
      }
    }
    return firstFile(layout, [...jsCandidates(join(pkg.dir, "src/index")), ...jsCandidates(join(pkg.dir, "index"))]);
  }
  return firstFile(layout, [...jsCandidates(join(pkg.dir, subpath)), ...jsCandidates(join(pkg.dir, "src", subpath))]);
}

function packageNameOf(specifier: string): string {
  const parts = specifier.split("/");
  return specifier.startsWith("@") ? parts.slice(0, 2).join("/") : (parts[0] as string);
}

function pythonModule(layout: ProjectLayout, base: string, dotted: string): string | undefined {
  const rel = join(base, dotted.split(".").join("/"));
  return firstFile(layout, [`${rel}.py`, join(rel, "__init__.py")]);
}

type Outcome = { path: string } | { external: string } | { unresolved: true } | null;

function resolveOne(layout: ProjectLayout, file: string, language: ImportLanguage, raw: RawImport): Outcome[] {
  const dir = dirOf(file);
  const spec = raw.specifier;
  switch (language) {
    case "js": {
      if (spec.startsWith(".") || spec.startsWith("/")) {
        const found = firstFile(layout, jsCandidates(join(dir, spec)));
        return [found ? { path: found } : { unresolved: true }];
      }
      const name = packageNameOf(spec);
      const pkg = layout.jsPackagesByName.get(name);
      if (pkg) {
        const found = resolveJsPackage(layout, pkg, spec.slice(name.length + 1));
        return [found ? { path: found } : { unresolved: true }];
      }
      return [{ external: spec.startsWith("node:") ? spec : name }];
    }
    case "python": {
      const dots = /^\.*/.exec(spec)?.[0].length ?? 0;
      const dotted = spec.slice(dots);
      const bases = dots > 0 ? [join(dir, ...Array<string>(dots - 1).fill(".."))] : [dir, ...layout.pythonRoots];
      for (const base of bases) {
        if (escapesRoot(base)) continue;
        // `from pkg import mod`: each name may be a submodule; otherwise the names live in pkg itself.
        const names = raw.names ?? [];
        const subs = names
          .map((n) => pythonModule(layout, base, dotted ? `${dotted}.${n}` : n))
          .filter((p): p is string => !!p);
        const found =
          dotted === "" ? firstFile(layout, [join(base, "__init__.py")]) : pythonModule(layout, base, dotted);
        if (subs.length > 0 && (subs.length === names.length || !found)) return subs.map((p) => ({ path: p }));
        if (found) return [...subs, found].map((p) => ({ path: p }));
      }
      return [dots > 0 ? { unresolved: true } : { external: dotted.split(".")[0] as string }];
    }
    case "go": {
      for (const [modulePath, moduleDir] of layout.goModules) {
        if (spec === modulePath || spec.startsWith(`${modulePath}/`)) {
          const target = join(moduleDir, spec.slice(modulePath.length + 1));
          return [layout.dirs.has(target) ? { path: target } : { unresolved: true }];
        }
      }
      return [{ external: spec }];
    }
    case "rust": {
      if (spec.startsWith("mod ")) {
        const name = spec.slice(4);
        const base = /(^|\/)(mod|lib|main)\.rs$/.test(file) ? dir : file.replace(/\.rs$/, "");
        const found = firstFile(layout, [join(base, `${name}.rs`), join(base, name, "mod.rs")]);
        return [found ? { path: found } : { unresolved: true }];
      }
      const segments = spec.split("::").filter(Boolean);
      const head = segments[0] ?? "";
      if (!RUST_BUILTIN_CRATES.has(head)) return [{ external: head }];
      if (head !== "crate") return [null]; // self::/super:: name items of this module tree: not a file edge worth guessing
      const crate = layout.crateRoots.find((root) => root === "." || file.startsWith(`${root}/`)) ?? ".";
      for (let n = segments.length - 1; n >= 1; n--) {
        const rel = join(crate, "src", ...segments.slice(1, n + 1));
        const found = firstFile(layout, [`${rel}.rs`, join(rel, "mod.rs")]);
        if (found) return [{ path: found }];
      }
      return [{ unresolved: true }];
    }
    case "java": {
      const parts = spec.replace(/\.\*$/, "").split(".");
      for (let n = parts.length; n >= 1; n--) {
        const suffix = `${parts.slice(0, n).join("/")}.java`;
        const found = (layout.byBaseName.get(`${parts[n - 1] as string}.java`) ?? []).find(
          (p) => p === suffix || p.endsWith(`/${suffix}`),
        );
        if (found) return [{ path: found }];
      }
      return [{ external: spec }];
    }
  }
}

/** Resolves a file's imports against the workspace: internal files, external modules, unresolved relatives. */
export function resolveImports(layout: ProjectLayout, file: string, imports: readonly RawImport[]): ResolvedImports {
  const language = importLanguageOf(file);
  const result: ResolvedImports = { internal: [], external: [], unresolved: [] };
  if (!language) return result;
  const seen = new Set<string>();
  for (const raw of imports) {
    for (const outcome of resolveOne(layout, file, language, raw)) {
      if (outcome === null) continue;
      if ("path" in outcome) {
        const key = `${outcome.path}\0${raw.specifier}`;
        if (outcome.path !== file && !seen.has(key)) {
          seen.add(key);
          result.internal.push({ specifier: raw.specifier, line: raw.line, path: outcome.path });
        }
      } else if ("external" in outcome) {
        if (!result.external.includes(outcome.external)) result.external.push(outcome.external);
      } else if (!result.unresolved.includes(raw.specifier)) {
        result.unresolved.push(raw.specifier);
      }
    }
  }
  result.external.sort();
  return result;
}
