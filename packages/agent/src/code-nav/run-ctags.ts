import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
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
  const body = pattern
    .replace(/^\/\^?/, "")
    .replace(/\$?\/$/, "")
    .replace(/\\([/\\])/g, "$1")
    .trim();
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
    child.on("error", (error) =>
      reject(new Error(`code_nav: could not run ctags (universal-ctags): ${error.message}`)),
    );
    child.on("close", (code) => {
      if (code === 0) resolve(symbols);
      else reject(new Error(`code_nav: ctags exited with ${code}: ${stderr.trim().slice(0, 500)}`));
    });
    child.stdin.on("error", () => undefined); // ctags died early: the close handler reports it
    child.stdin.end(files.join("\n") + "\n");
  });
}

/**
 * One long-lived `ctags --_interactive` for updates: a changed file costs a line on a pipe instead of starting
 * a process (two, through setpriv). Requests go one at a time; a server that died is started again on the
 * next request.
 */
export class CtagsServer {
  private child: ChildProcessWithoutNullStreams | undefined;
  private queue: Promise<unknown> = Promise.resolve();
  private pending:
    { symbols: IndexedSymbol[]; done: (symbols: IndexedSymbol[]) => void; fail: (error: Error) => void } | undefined;

  constructor(
    private readonly config: AgentConfig,
    private readonly cwd: string,
  ) {}

  tag(file: string): Promise<IndexedSymbol[]> {
    const run = this.queue.then(() => this.request(file));
    this.queue = run.catch(() => undefined);
    return run;
  }

  private start(): ChildProcessWithoutNullStreams {
    const launch = asAgentHelper(this.config, "ctags", [
      "--_interactive",
      ...CTAGS_ARGS.filter((a) => a !== "-f" && a !== "-" && a !== "-L"),
    ]);
    const child = spawn(launch.file, launch.args, { cwd: this.cwd, stdio: ["pipe", "pipe", "pipe"] });
    child.stderr.resume();
    child.stdin.on("error", () => undefined);
    createInterface({ input: child.stdout }).on("line", (line) => {
      const pending = this.pending;
      if (!pending) return;
      if (line.startsWith('{"_type": "completed"')) {
        this.pending = undefined;
        pending.done(pending.symbols);
        return;
      }
      const symbol = parseCtagsLine(line);
      if (symbol) pending.symbols.push(symbol);
    });
    const gone = (why: string) => {
      if (this.child === child) this.child = undefined;
      const pending = this.pending;
      this.pending = undefined;
      pending?.fail(new Error(`code_nav: ctags --_interactive ${why}`));
    };
    child.on("error", (error) => gone(`could not run: ${error.message}`));
    child.on("close", (code) => gone(`exited with ${code}`));
    return child;
  }

  private request(file: string): Promise<IndexedSymbol[]> {
    this.child ??= this.start();
    const child = this.child;
    return new Promise((resolve, reject) => {
      this.pending = { symbols: [], done: resolve, fail: reject };
      child.stdin.write(`${JSON.stringify({ command: "generate-tags", filename: file })}\n`);
    });
  }

  close(): void {
    this.child?.kill();
    this.child = undefined;
  }
}
