import { spawn } from "node:child_process";
import { createInterface } from "node:readline";
import type { AgentConfig } from "../config";
import { asAgentHelper } from "../processes/launch";

/** A definition as the index keeps it (path is workspace-relative). */
export interface IndexedSymbol {
  name: string;
  path: string;
  line: number;
  kind: string;
  signature: string;
  scope?: string;
  endLine?: number;
}

/** Import aliases and package clauses are not definitions a caller looks for. */
const SKIPPED_KINDS = new Set(["packageName", "package", "import", "unknown"]);
const SIGNATURE_CHARS = 200;

/**
 * Universal Ctags 5.9 (Debian bookworm) with JSON lines: one process for a batch of files, named on stdin so
 * a 10k-file batch never meets the argument-length limit. TypeScript's parser also takes .tsx/.mts/.cts.
 */
export const CTAGS_ARGS = [
  "--output-format=json",
  "--fields=+nKSe",
  "--sort=no",
  "--pattern-length-limit=200",
  "--map-TypeScript=+.tsx",
  "--map-TypeScript=+.mts",
  "--map-TypeScript=+.cts",
  "--map-JavaScript=+.cjs",
  "-f",
  "-",
  "-L",
  "-",
];

interface CtagsLine {
  _type?: string;
  name?: string;
  path?: string;
  pattern?: string;
  line?: number;
  kind?: string;
  scope?: string;
  end?: number;
}

/** `/^  def f(a):$/` → `def f(a):` (ctags escapes `/` and `\` inside the pattern). */
export function signatureOf(pattern: string | undefined): string {
  if (!pattern) return "";
  const body = pattern.replace(/^\/\^?/, "").replace(/\$?\/$/, "").replace(/\\([/\\])/g, "$1").trim();
  return body.length > SIGNATURE_CHARS ? `${body.slice(0, SIGNATURE_CHARS)}…` : body;
}

export function parseCtagsLine(text: string): IndexedSymbol | null {
  let tag: CtagsLine;
  try {
    tag = JSON.parse(text) as CtagsLine;
  } catch {
    return null;
  }
  if (tag._type !== "tag" || !tag.name || !tag.path || !tag.kind || typeof tag.line !== "number") return null;
  if (SKIPPED_KINDS.has(tag.kind)) return null;
  return {
    name: tag.name,
    path: tag.path,
    line: tag.line,
    kind: tag.kind,
    signature: signatureOf(tag.pattern),
    ...(tag.scope ? { scope: tag.scope } : {}),
    ...(typeof tag.end === "number" ? { endLine: tag.end } : {}),
  };
}

/**
 * Runs ctags over `files` (relative to `cwd`) and returns their definitions. Run as an agent helper (no
 * capabilities, not the workspace user), for the same reason as ripgrep: what it prints is trusted.
 */
export function runCtags(config: AgentConfig, cwd: string, files: readonly string[]): Promise<IndexedSymbol[]> {
  if (files.length === 0) return Promise.resolve([]);
  return new Promise((resolve, reject) => {
    const launch = asAgentHelper(config, "ctags", CTAGS_ARGS);
    const child = spawn(launch.file, launch.args, { cwd, stdio: ["pipe", "pipe", "pipe"] });
    const symbols: IndexedSymbol[] = [];
    let stderr = "";
    child.stderr.setEncoding("utf8");
    child.stderr.on("data", (chunk: string) => {
      if (stderr.length < 4096) stderr += chunk;
    });
    createInterface({ input: child.stdout }).on("line", (line) => {
      const symbol = parseCtagsLine(line);
      if (symbol) symbols.push(symbol);
    });
    child.on("error", (error) => reject(new Error(`code_nav: could not run ctags (universal-ctags): ${error.message}`)));
    child.on("close", (code) => {
      if (code === 0) resolve(symbols);
      else reject(new Error(`code_nav: ctags exited with ${code}: ${stderr.trim().slice(0, 500)}`));
    });
    child.stdin.on("error", () => undefined); // ctags died early: the close handler reports it
    child.stdin.end(files.join("\n") + "\n");
  });
}
