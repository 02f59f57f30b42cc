import {
  type CodeNavArgs,
  type CodeNavDetails,
  type CodeNavMode,
  GLOB_IGNORED_DIRS,
  type ToolResult,
} from "@berth/protocol";
import { okResult, type ToolContext } from "../tools/tool-context";
import { fail } from "../tools/tool-failure-error";
import type { CodeIndex } from "./code-index";
import { codeIndexFor } from "./code-index-cache";
import { findEntries } from "./find-entries";
import { isGlobQuery, isRegexQuery, pathMatcher } from "./path-matcher";
import type { IndexedSymbol } from "./run-ctags";

const IDENTIFIER = /^[A-Za-z_$][\w$]*(?:(?:\.|::|#)[A-Za-z_$][\w$]*)*$/;
const LANGUAGE_BY_EXTENSION: Readonly<Record<string, string>> = {
  ts: "typescript",
  tsx: "typescript",
  mts: "typescript",
  cts: "typescript",
  js: "javascript",
  jsx: "javascript",
  mjs: "javascript",
  cjs: "javascript",
  py: "python",
  pyi: "python",
  go: "go",
  rs: "rust",
  java: "java",
};

function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** What a query looks like, to send it to the mode that can answer it. */
type QueryShape = "regex" | "glob" | "file" | "pathlike" | "identifier" | "text";

function asWorkspacePath(query: string): string {
  return query.replace(/^\/workspace\//, "").replace(/^(\.\/)+/, "");
}

function shapeOf(index: CodeIndex, query: string): QueryShape {
  if (isRegexQuery(query)) return "regex";
  if (isGlobQuery(query)) return "glob";
  if (index.hasFile(asWorkspacePath(query))) return "file";
  if (query.includes("/")) return "pathlike";
  // `utils.py` is a file name unless some definition is really called that.
  const ext = /\.(\w{1,5})$/.exec(query)?.[1];
  if (ext && ext in LANGUAGE_BY_EXTENSION && findSymbols(index, query).length === 0) return "pathlike";
  return IDENTIFIER.test(query) ? "identifier" : "text";
}

function redirect(mode: CodeNavMode, query: string, to: CodeNavMode, why: string): never {
  fail(
    "wrong_mode",
    `code_nav: mode "${mode}" cannot answer ${JSON.stringify(query)}: ${why}; use mode "${to}" instead`,
    {
      redirect: to,
      query,
    },
  );
}

function limited<T>(items: T[], limit: number): { items: T[]; total: number; truncated: boolean } {
  return { items: items.slice(0, limit), total: items.length, truncated: items.length > limit };
}

/** `src/a.ts`, `./src/a.ts` and `/workspace/src/a.ts` name the same file; confinement is the workspace's. */
async function relFile(ctx: ToolContext, input: string): Promise<string> {
  const resolved = await ctx.workspace.resolve(input.trim());
  return ctx.workspace.relative(resolved.real);
}

function underFolder(folder: string) {
  return (rel: string) => folder === "." || rel === folder || rel.startsWith(`${folder}/`);
}

/** Definitions named `query`; `Class.method` (or `::`, `#`) narrows by scope. */
function findSymbols(index: CodeIndex, query: string): IndexedSymbol[] {
  const parts = query.split(/\.|::|#/);
  const exact = [...index.symbolsNamed(query)];
  if (exact.length > 0) return exact;
  if (parts.length > 1) {
    const name = parts.at(-1) as string;
    const scope = parts.slice(0, -1).join(".");
    const scoped = index
      .symbolsNamed(name)
      .filter(
        (s) =>
          s.scope !== undefined &&
          (s.scope === scope || s.scope.endsWith(`.${scope}`) || s.scope.replace(/::/g, ".").endsWith(scope)),
      );
    if (scoped.length > 0) return scoped;
  }
  return index.symbolsNamedLoosely(query);
}

/** The heavy half of code_nav, loaded on its first call: builds or refreshes the index, then answers. */
export async function runCodeNav(args: CodeNavArgs, ctx: ToolContext): Promise<ToolResult> {
  const root = await ctx.workspace.realRoot();
  const index = codeIndexFor(root, ctx.config);
  const refresh = await index.refresh();
  const query = args.query.trim();
  const trace = { index: refresh };
  const shape = query === "" ? "text" : shapeOf(index, query);
  const folder =
    args.path !== undefined && !["outline", "deps", "dependents"].includes(args.mode)
      ? await relFile(ctx, args.path)
      : ".";
  const inFolder = underFolder(folder);

  switch (args.mode) {
    case "symbol": {
      if (shape === "file")
        redirect("symbol", query, "outline", "it is a file (outline lists its symbols; deps/dependents its imports)");
      if (shape === "regex" || shape === "glob" || shape === "pathlike")
        redirect("symbol", query, "path", "it is a path pattern, not a symbol name");
      const found = findSymbols(index, query)
        .filter((s) => inFolder(s.path))
        .sort((a, b) => compareStrings(a.path, b.path) || a.line - b.line);
      const { items, total, truncated } = limited(found, args.limit);
      const details: CodeNavDetails = { mode: "symbol", query, total, truncated, symbols: items };
      return okResult(details, trace);
    }
    case "path": {
      const matcher = pathMatcher(query);
      const matched = await matcher.filter(index.allFiles().filter(inFolder));
      if (matched.length === 0 && shape === "identifier" && findSymbols(index, query).length > 0) {
        redirect("path", query, "symbol", "no file path matches, but it names a definition");
      }
      const name = (f: string) => f.slice(f.lastIndexOf("/") + 1);
      // A substring found in the file name ranks above one found only in a folder name.
      const rank = (f: string) => (matcher.kind === "substring" && !pathMatcher(query).test(name(f)) ? 1 : 0);
      matched.sort((a, b) => rank(a) - rank(b) || compareStrings(a, b));
      const { items, total, truncated } = limited(matched, args.limit);
      const details: CodeNavDetails = { mode: "path", query, matcher: matcher.kind, total, truncated, files: items };
      return okResult(details, trace);
    }
    case "entries": {
      if (query !== "") {
        if (shape === "file")
          redirect(
            "entries",
            query,
            "outline",
            "entries takes no query (path narrows it to a folder), and this is a file",
          );
        if (shape === "identifier" && findSymbols(index, query).length > 0)
          redirect("entries", query, "symbol", "entries takes no query, and this names a definition");
        if (shape === "regex" || shape === "glob")
          redirect("entries", query, "path", "entries takes no query, and this is a path pattern");
      }
      const found = await findEntries(root, await index.layout(), folder);
      const { items, total, truncated } = limited(found, args.limit);
      const details: CodeNavDetails = { mode: "entries", query, total, truncated, entries: items };
      return okResult(details, trace);
    }
    case "outline":
    case "deps":
    case "dependents": {
      const target = query !== "" ? query : (args.path as string);
      const file = await relFile(ctx, target);
      if (!index.hasFile(file)) {
        if (shape === "identifier" && findSymbols(index, target).length > 0) {
          redirect(args.mode, target, "symbol", "it names a definition, not a file");
        }
        if (shape === "regex" || shape === "glob")
          redirect(args.mode, target, "path", "it is a path pattern; find the file first");
        fail(
          "not_found",
          `code_nav: no file ${target} in the index (folders ${[".git", ...GLOB_IGNORED_DIRS].join(", ")} are not indexed); mode "path" finds files`,
        );
      }
      if (args.mode === "outline") {
        const symbols = [...(index.outline(file) ?? [])];
        const { items, total, truncated } = limited(symbols, args.limit);
        const ext = file.slice(file.lastIndexOf(".") + 1);
        const language = index.isIndexed(file) ? (LANGUAGE_BY_EXTENSION[ext] ?? ext) : "none";
        const details: CodeNavDetails = {
          mode: "outline",
          query: target,
          path: file,
          language,
          total,
          truncated,
          symbols: items,
        };
        return okResult(details, trace);
      }
      if (args.mode === "deps") {
        const deps = await index.importsOf(file);
        const { items, total, truncated } = limited(deps.internal, args.limit);
        const details: CodeNavDetails = {
          mode: "deps",
          query: target,
          path: file,
          total,
          truncated,
          internal: items,
          external: deps.external.slice(0, args.limit),
          unresolved: deps.unresolved.slice(0, args.limit),
        };
        return okResult(details, trace);
      }
      const { items, total, truncated } = limited(await index.dependentsOf(file), args.limit);
      const details: CodeNavDetails = {
        mode: "dependents",
        query: target,
        path: file,
        total,
        truncated,
        dependents: items,
      };
      return okResult(details, trace);
    }
  }
}
