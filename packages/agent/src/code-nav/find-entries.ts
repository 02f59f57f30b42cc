import { readFile } from "node:fs/promises";
import path from "node:path";
import type { CodeNavEntry } from "@berth/protocol";
import { type JsPackage, type ProjectLayout, depth, dirOf, join } from "./project-layout";
import { targetFile } from "./resolve-imports";

/** File names that start a program by convention, at any depth. */
const CONVENTIONAL = new Set([
  ...["index", "main", "server", "app", "cli"].flatMap((n) =>
    ["ts", "tsx", "mts", "js", "mjs", "cjs"].map((e) => `${n}.${e}`),
  ),
  "__main__.py",
  "main.py",
  "app.py",
  "cli.py",
  "manage.py",
  "wsgi.py",
  "asgi.py",
  "main.go",
  "main.rs",
  "lib.rs",
  "Main.java",
  "Application.java",
]);

function manifestEntries(layout: ProjectLayout, pkg: JsPackage): CodeNavEntry[] {
  const out: CodeNavEntry[] = [];
  const add = (target: unknown, reason: string) => {
    if (typeof target !== "string") return;
    const declared = join(pkg.dir, target);
    // A built target (dist/index.js) is shown as the source the workspace holds, and says so.
    const found = layout.files.has(declared) ? declared : targetFile(layout, pkg, target);
    out.push({
      path: found ?? declared,
      reason: found && found !== declared ? `${reason} (${target} → source)` : reason,
      manifest: pkg.manifest,
      exists: found !== undefined,
    });
  };
  add(pkg.main, "package.json main");
  add(pkg.module, "package.json module");
  if (typeof pkg.bin === "string") add(pkg.bin, `package.json bin ${pkg.name ?? ""}`.trim());
  else if (pkg.bin && typeof pkg.bin === "object")
    for (const [name, target] of Object.entries(pkg.bin)) add(target, `package.json bin ${name}`);
  const exportsMap = pkg.exports;
  const exportEntries = (key: string, value: unknown): void => {
    if (typeof value === "string") add(value, `package.json exports ${key}`);
    else if (value && typeof value === "object" && !Array.isArray(value)) {
      // Conditions: the first that names a file (types, import, default, …), once per key.
      const first = Object.values(value as Record<string, unknown>).find((v) => typeof v === "string");
      if (first !== undefined) add(first, `package.json exports ${key}`);
    }
  };
  if (typeof exportsMap === "string") exportEntries(".", exportsMap);
  else if (exportsMap && typeof exportsMap === "object" && !Array.isArray(exportsMap)) {
    const record = exportsMap as Record<string, unknown>;
    if (Object.keys(record).some((k) => k.startsWith(".")))
      for (const [key, value] of Object.entries(record)) exportEntries(key, value);
    else exportEntries(".", record);
  }
  return out;
}

/** `[project.scripts]` (and poetry's) of a pyproject.toml: `name = "pkg.cli:main"` → pkg/cli.py. */
async function pyprojectEntries(root: string, layout: ProjectLayout, manifest: string): Promise<CodeNavEntry[]> {
  const text = await readFile(path.join(root, manifest), "utf8").catch(() => "");
  const out: CodeNavEntry[] = [];
  let inScripts = false;
  for (const line of text.split("\n")) {
    const section = /^\s*\[([^\]]+)\]/.exec(line);
    if (section) {
      inScripts = section[1] === "project.scripts" || section[1] === "tool.poetry.scripts";
      continue;
    }
    const script = inScripts ? /^\s*"?([\w.-]+)"?\s*=\s*["']([\w.]+)(?::[\w.]+)?["']/.exec(line) : null;
    if (!script) continue;
    const modulePath = (script[2] as string).split(".").join("/");
    const dir = dirOf(manifest);
    const candidates = [".", "src"].flatMap((r) => [
      join(dir, r, `${modulePath}.py`),
      join(dir, r, modulePath, "__init__.py"),
    ]);
    const found = candidates.find((c) => layout.files.has(c));
    out.push({
      path: found ?? (candidates[0] as string),
      reason: `pyproject.toml script ${script[1] as string}`,
      manifest,
      exists: found !== undefined,
    });
  }
  return out;
}

/** Declared entry points first (package.json main/bin/exports, pyproject scripts), then conventional entry files. */
export async function findEntries(root: string, layout: ProjectLayout, under: string): Promise<CodeNavEntry[]> {
  const inside = (rel: string) => under === "." || rel === under || rel.startsWith(`${under}/`);
  const entries: CodeNavEntry[] = [];
  for (const pkg of layout.jsPackages) if (inside(pkg.manifest)) entries.push(...manifestEntries(layout, pkg));
  const pyprojects = [...layout.files]
    .filter((f) => (f === "pyproject.toml" || f.endsWith("/pyproject.toml")) && inside(f))
    .sort((a, b) => depth(a) - depth(b));
  for (const manifest of pyprojects) entries.push(...(await pyprojectEntries(root, layout, manifest)));
  const declared = new Set<string>();
  const unique = entries.filter((e) => !declared.has(e.path) && declared.add(e.path));
  const conventional = [...layout.files]
    .filter((f) => inside(f) && !declared.has(f) && CONVENTIONAL.has(f.slice(f.lastIndexOf("/") + 1)))
    .sort((a, b) => depth(a) - depth(b) || (a < b ? -1 : a > b ? 1 : 0));
  for (const file of conventional) unique.push({ path: file, reason: "conventional", exists: true });
  return unique;
}
