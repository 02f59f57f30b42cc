/** One import as written in a file: the specifier, its line, and for Python the names imported from it. */
export interface RawImport {
  specifier: string;
  line: number;
  /** `from pkg import a, b`: a and b may be submodules of pkg. */
  names?: string[];
}

export type ImportLanguage = "js" | "python" | "go" | "rust" | "java";

const LANGUAGE_BY_EXTENSION: Readonly<Record<string, ImportLanguage>> = {
  ".ts": "js",
  ".tsx": "js",
  ".mts": "js",
  ".cts": "js",
  ".js": "js",
  ".jsx": "js",
  ".mjs": "js",
  ".cjs": "js",
  ".py": "python",
  ".go": "go",
  ".rs": "rust",
  ".java": "java",
};

export function importLanguageOf(file: string): ImportLanguage | undefined {
  const dot = file.lastIndexOf(".");
  return dot === -1 ? undefined : LANGUAGE_BY_EXTENSION[file.slice(dot)];
}

/** Blanks comments (keeping newlines, so line numbers hold); `#` for Python, `//` and block comments elsewhere. */
function blankComments(text: string, language: ImportLanguage): string {
  const keepNewlines = (match: string) => match.replace(/[^\n]/g, " ");
  if (language === "python") return text.replace(/#[^\n]*/g, keepNewlines);
  // `//` after a quote-free stretch only, so "http://x" in a string survives.
  return text
    .replace(/\/\*[\s\S]*?\*\//g, keepNewlines)
    .replace(/(^|[^:'"`\\])\/\/[^\n]*/g, (m, lead: string) => lead + keepNewlines(m.slice(lead.length)));
}

function lineAt(text: string, index: number, lineStarts: number[]): number {
  let lo = 0;
  let hi = lineStarts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if ((lineStarts[mid] as number) <= index) lo = mid;
    else hi = mid - 1;
  }
  return lo + 1;
}

function lineStartsOf(text: string): number[] {
  const starts = [0];
  for (let i = text.indexOf("\n"); i !== -1; i = text.indexOf("\n", i + 1)) starts.push(i + 1);
  return starts;
}

const JS_PATTERNS = [
  /\b(?:import|export)\s+(?:type\s+)?[\w*{}\s,$]*?\bfrom\s*["']([^"'\n]+)["']/g,
  /\bimport\s*["']([^"'\n]+)["']/g,
  /\b(?:require|import)\s*\(\s*["']([^"'\n]+)["']\s*\)/g,
];
const GO_SPEC = /^\s*(?:[\w.]+\s+)?"([^"\n]+)"/;

/**
 * The imports of one source file, by a small per-language scanner (ctags reports definitions, not imports).
 * Good enough for navigation: it reads static import forms and skips comments; computed imports are not seen.
 */
export function parseImports(text: string, language: ImportLanguage): RawImport[] {
  const source = blankComments(text, language);
  const starts = lineStartsOf(source);
  const found: RawImport[] = [];
  const add = (specifier: string, index: number, names?: string[]) =>
    found.push({ specifier, line: lineAt(source, index, starts), ...(names ? { names } : {}) });

  switch (language) {
    case "js":
      for (const pattern of JS_PATTERNS) {
        for (const m of source.matchAll(pattern)) add(m[1] as string, m.index);
      }
      break;
    case "python":
      for (const m of source.matchAll(/^[ \t]*import[ \t]+([^\n]+)/gm)) {
        for (const part of (m[1] as string).split(",")) {
          const name = part
            .trim()
            .split(/\s+as\s+/)[0]
            ?.trim();
          if (name && /^[\w.]+$/.test(name)) add(name, m.index);
        }
      }
      for (const m of source.matchAll(/^[ \t]*from[ \t]+([\w.]+)[ \t]+import[ \t]+(\([^)]*\)|[^\n]+)/gm)) {
        const names = (m[2] as string)
          .replace(/[()\\]/g, " ")
          .split(",")
          .map(
            (n) =>
              n
                .trim()
                .split(/\s+as\s+/)[0]
                ?.trim() ?? "",
          )
          .filter((n) => /^\w+$/.test(n));
        add(m[1] as string, m.index, names);
      }
      break;
    case "go":
      for (const m of source.matchAll(/\bimport\s*\(([^)]*)\)/g)) {
        let offset = m.index + m[0].indexOf("(") + 1;
        for (const line of (m[1] as string).split("\n")) {
          const spec = GO_SPEC.exec(line);
          if (spec) add(spec[1] as string, offset);
          offset += line.length + 1;
        }
      }
      for (const m of source.matchAll(/\bimport\s+(?:[\w.]+\s+)?"([^"\n]+)"/g)) add(m[1] as string, m.index);
      break;
    case "rust":
      for (const m of source.matchAll(/^[ \t]*(?:pub(?:\([^)]*\))?\s+)?mod\s+(\w+)\s*;/gm))
        add(`mod ${m[1] as string}`, m.index);
      for (const m of source.matchAll(/^[ \t]*(?:pub(?:\([^)]*\))?\s+)?use\s+([\w:]+)/gm)) add(m[1] as string, m.index);
      for (const m of source.matchAll(/^[ \t]*extern\s+crate\s+(\w+)/gm)) add(m[1] as string, m.index);
      break;
    case "java":
      for (const m of source.matchAll(/^[ \t]*import\s+(?:static\s+)?([\w.]+(?:\.\*)?)\s*;/gm))
        add(m[1] as string, m.index);
      break;
  }
  found.sort((a, b) => a.line - b.line);
  return found;
}
