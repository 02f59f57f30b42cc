import type { RunScriptInterpreter } from "@berth/protocol";

const LANGUAGE_BY_EXTENSION: Record<string, string> = {
  py: "python", js: "javascript", mjs: "javascript", cjs: "javascript", jsx: "javascript", ts: "typescript", tsx: "typescript",
  mts: "typescript", json: "json", md: "markdown", markdown: "markdown", sh: "shell", bash: "shell", zsh: "shell",
  html: "html", htm: "html", css: "css", scss: "scss", less: "less", yml: "yaml", yaml: "yaml", toml: "ini", ini: "ini",
  xml: "xml", svg: "xml", sql: "sql", rb: "ruby", pl: "perl", pm: "perl", r: "r", jl: "julia", m: "objective-c",
  go: "go", rs: "rust", java: "java", c: "c", h: "c", cpp: "cpp", cc: "cpp", hpp: "cpp", cs: "csharp", php: "php",
  lua: "lua", swift: "swift", kt: "kotlin", dockerfile: "dockerfile", txt: "plaintext", csv: "plaintext",
};

const INTERPRETER_BY_EXTENSION: Record<string, RunScriptInterpreter> = {
  py: "python3", js: "node", mjs: "node", cjs: "node", sh: "bash", bash: "bash", pl: "perl", rb: "ruby", r: "Rscript", jl: "julia", m: "octave",
};

export function extensionOf(path: string): string {
  const name = path.split("/").pop() ?? path;
  if (name.toLowerCase() === "dockerfile") return "dockerfile";
  const dot = name.lastIndexOf(".");
  return dot > 0 ? name.slice(dot + 1).toLowerCase() : "";
}

/** Monaco language id for a file name; plain text when unknown. */
export function languageFor(path: string): string {
  return LANGUAGE_BY_EXTENSION[extensionOf(path)] ?? "plaintext";
}

/** run_script interpreter for a file name, or null when the file is not runnable. */
export function interpreterFor(path: string): RunScriptInterpreter | null {
  return INTERPRETER_BY_EXTENSION[extensionOf(path)] ?? null;
}
