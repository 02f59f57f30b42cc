import { posix } from "node:path";
import { forEachChild, parse } from "unbash";
import type { AndOr, Command, Redirection, SyntaxNode } from "unbash";
import { levelToClass, severityRank } from "../admission/severity";
import type { SeverityLevel } from "../admission/severity";
import type { ClassifyOptions, CommandClassification, SimpleCommand } from "./classify-command";
import { isPipePath } from "./command-args";
import type { Arg, CommandContext, Stdin } from "./command-context";
import { commandHandler } from "./command-table";
import { isDangerousVariable } from "./families/shell-state-commands";
import { assignmentArg, clip, isStaticParts, shownValue, trimSlash, wordArg } from "./shell-words";

const MAX_DEPTH = 12;
const STANDARD_BIN_DIRS = new Set(["/bin", "/usr/bin", "/usr/local/bin", "/sbin", "/usr/sbin", "/usr/local/sbin"]);
/** Project-local tools in a workspace virtualenv or node_modules/.bin keep their meaning. */
const LOCAL_TOOLS = new Set([
  "pip",
  "pip3",
  "python",
  "python3",
  "pytest",
  "tsc",
  "vitest",
  "jest",
  "eslint",
  "prettier",
  "mypy",
  "ruff",
  "black",
]);
const WRITE_OPERATORS = new Set([">", ">>", ">|", "&>", "&>>", "<>"]);
const DEVICE_PATHS = new Set([
  "/dev/null",
  "/dev/stdout",
  "/dev/stderr",
  "/dev/stdin",
  "/dev/tty",
  "/dev/zero",
  "/dev/full",
]);
export const NO_STDIN: Stdin = { kind: "none" };
const PIPE_STDIN: Stdin = { kind: "pipe" };

interface Scope {
  /** Absolute working directory; undefined once it cannot be known (`cd "$X"`, a conditional `cd`). */
  cwd: string | undefined;
  /** PATH, LD_PRELOAD… were changed: names no longer mean the programs we know. */
  tainted: boolean;
  /** Inside a branch, loop or `&&`/`||` tail: a `cd` here may or may not happen. */
  conditional: boolean;
}

type Location = "inside" | "outside" | "device" | "unknown";

/** Walks one parsed command line and collects the most severe finding. */
export class CommandWalk {
  private level: SeverityLevel | undefined;
  private allRecognised = true;
  private alwaysAsk = false;
  private substitutions = 0;
  private readonly reasons = new Set<string>();
  readonly commands: SimpleCommand[] = [];
  private readonly root: string;
  private readonly writableRoots: readonly string[];

  constructor(opts: ClassifyOptions) {
    this.root = trimSlash(posix.normalize(opts.workspaceRoot));
    this.writableRoots = (opts.writableRoots ?? []).map((r) => trimSlash(posix.normalize(r)));
  }

  initialScope(cwd: string | undefined): Scope {
    return { cwd: cwd === undefined ? this.root : posix.resolve(this.root, cwd), tainted: false, conditional: false };
  }

  add(level: SeverityLevel, reason?: string): void {
    if (this.level === undefined || severityRank(level) > severityRank(this.level)) this.level = level;
    if (level === "execute-other" || level === "unknown") this.allRecognised = false;
    if (reason !== undefined) this.reasons.add(`${reason} [${levelToClass(level)}]`);
  }

  /** Code we cannot see: unknown, and asked about at every autonomy level. */
  unseen(reason: string): void {
    this.add("unknown");
    this.alwaysAsk = true;
    this.reasons.add(`${reason} [unknown, always asks]`);
  }

  result(): CommandClassification {
    const level = this.level ?? "read";
    return {
      actionClass: levelToClass(level),
      recognised: this.allRecognised,
      alwaysAsk: this.alwaysAsk,
      reasons: [...this.reasons],
      commands: this.commands,
      substitutions: this.substitutions,
    };
  }

  source(text: string, scope: Scope, depth: number): void {
    if (depth > MAX_DEPTH) {
      this.unseen("commands nested too deeply to classify");
      return;
    }
    this.node(parse(text), scope, depth);
  }

  private node(n: SyntaxNode, scope: Scope, depth: number): void {
    switch (n.type) {
      case "Script":
        if (n.errors && n.errors.length > 0) {
          this.unseen(`cannot parse: ${n.errors[0]!.message}`);
        }
        for (const statement of n.commands) this.node(statement, scope, depth);
        return;
      case "Statement":
        return this.node(n.command, scope, depth);
      case "AndOr":
        return this.andOr(n, scope, depth);
      case "Pipeline":
        n.commands.forEach((member, i) => {
          if (member.type === "Command") this.command(member, scope, depth, i > 0 ? PIPE_STDIN : NO_STDIN);
          else this.node(member, scope, depth);
        });
        return;
      case "Command":
        return this.command(n, scope, depth, NO_STDIN);
      case "Subshell":
        return this.node(n.body, { ...scope }, depth);
      case "Function":
        // A definition runs nothing yet, but its body runs whenever the name is called.
        return forEachChild(n, (child) => this.node(child, { ...scope, conditional: true }, depth));
      case "If":
      case "While":
      case "For":
      case "Case":
      case "Select":
      case "ArithmeticFor":
      case "Coproc": {
        const was = scope.conditional;
        scope.conditional = true;
        forEachChild(n, (child) => this.node(child, scope, depth));
        scope.conditional = was;
        return;
      }
      case "TestCommand":
      case "ArithmeticCommand":
        this.add("execute-recognised");
        return forEachChild(n, (child) => this.node(child, scope, depth));
      case "CommandExpansion":
      case "ProcessSubstitution":
      case "ArithmeticCommandExpansion": {
        const what =
          n.type === "ProcessSubstitution"
            ? "process substitution"
            : n.text.startsWith("`")
              ? "backtick substitution"
              : "command substitution";
        this.substitutions++;
        // What a substitution runs is a command like any other: its class joins the line's. Only a
        // command *name* taken from its output is unseen code (argv() asks about that).
        if (n.script === undefined) this.unseen(`cannot parse ${what} ${clip(n.text)}`);
        else if (depth + 1 > MAX_DEPTH) this.unseen("commands nested too deeply to classify");
        else this.node(n.script, { ...scope }, depth + 1);
        return;
      }
      case "Redirect":
      case "HereDoc":
      case "HereString":
        return this.redirect(n, scope, depth);
      default:
        return forEachChild(n, (child) => this.node(child, scope, depth));
    }
  }

  private andOr(n: AndOr, scope: Scope, depth: number): void {
    const was = scope.conditional;
    n.commands.forEach((member, i) => {
      // After `&&`/`||` a command may not run, so a `cd` there leaves the directory unknown.
      if (i > 0) scope.conditional = true;
      this.node(member, scope, depth);
    });
    scope.conditional = was;
  }

  private redirect(r: Redirection, scope: Scope, depth: number): void {
    forEachChild(r, (child) => this.node(child, scope, depth));
    if (r.type !== "Redirect" || r.target === undefined) return;
    const target = wordArg(r.target);
    if (r.operator === ">&") {
      // `2>&1`, `>&-` duplicate descriptors; `>& file` writes a file.
      if (target.value !== undefined && /^(\d+-?|-)$/.test(target.value)) return;
      return this.writes(target.value, scope, `redirect ${r.operator}`);
    }
    if (WRITE_OPERATORS.has(r.operator)) this.writes(target.value, scope, `redirect ${r.operator}`);
  }

  private stdinOf(redirects: readonly Redirection[], fallback: Stdin): Stdin {
    let stdin = fallback;
    for (const r of redirects) {
      const fd = r.descriptor?.type === "FileDescriptor" ? r.descriptor.value : r.descriptor === undefined ? 0 : -1;
      if (fd !== 0) continue;
      if (r.type === "HereDoc") {
        const isStatic = r.delimiter?.quoted === true || isStaticParts(r.body.parts);
        stdin = { kind: "text", text: isStatic ? r.body.text : undefined };
      } else if (r.type === "HereString") {
        stdin = { kind: "text", text: r.target ? wordArg(r.target).value : undefined };
      } else if (r.operator === "<" || r.operator === "<>") {
        stdin = { kind: "file", path: r.target ? wordArg(r.target).value : undefined };
      }
    }
    return stdin;
  }

  private command(cmd: Command, scope: Scope, depth: number, piped: Stdin): void {
    // Substitutions hide in any word, assignment or redirect target: visit them all.
    forEachChild(cmd, (child) => this.node(child, scope, depth));
    let tainted = false;
    for (const p of cmd.prefix) {
      if (p.type !== "Assignment" || !isDangerousVariable(p.name)) continue;
      this.add("execute-other", `sets ${p.name}, which changes what commands run`);
      // `PATH=x cmd` affects cmd only; a bare `PATH=x` changes the rest of the line.
      if (cmd.name === undefined) scope.tainted = true;
      else tainted = true;
    }
    if (cmd.name === undefined) {
      this.add("execute-recognised");
      return;
    }
    const args: Arg[] = [wordArg(cmd.name)];
    for (const s of cmd.suffix) {
      if (s.type === "Word") args.push(wordArg(s));
      else if (s.type === "Assignment") args.push(assignmentArg(s));
    }
    const forms: string[][] = [];
    this.commands.push({ words: args.map(shownValue), forms });
    this.argv(
      args,
      { ...scope, tainted: scope.tainted || tainted },
      scope,
      depth,
      this.stdinOf(cmd.redirects, piped),
      forms,
    );
  }

  /**
   * Classifies one argv. `runScope` carries per-command taint; `scope` is the shell's own state that
   * `cd` and `export` change.
   */
  argv(args: readonly Arg[], runScope: Scope, scope: Scope, depth: number, stdin: Stdin, forms: string[][]): void {
    const first = args[0];
    if (first === undefined) return;
    if (depth > MAX_DEPTH) {
      this.unseen("commands nested too deeply to classify");
      return;
    }
    if (first.value === undefined) {
      const reason = `command name ${clip(first.text)} is not static`;
      this.unseen(reason);
      forms.push(args.map(shownValue));
      return;
    }
    let name = first.value;
    let local = false;
    if (isPipePath(first)) {
      this.unseen(`runs what ${clip(first.text)} prints as a program`);
      forms.push(args.map(shownValue));
      return;
    }
    if (name.includes("/")) {
      const base = posix.basename(name);
      if (STANDARD_BIN_DIRS.has(posix.dirname(name))) name = base;
      else if (LOCAL_TOOLS.has(base) && this.locate(name, scope.cwd) === "inside") {
        name = base;
        local = true;
      } else {
        forms.push(args.map(shownValue));
        this.add("execute-other", `runs the program ${name}`);
        return;
      }
    }
    forms.push([name, ...args.slice(1).map(shownValue)]);
    const handler = commandHandler(name);
    if (handler === undefined) {
      this.add("execute-other", `${name} is not a recognised command`);
      return;
    }
    handler(this.context(name, args.slice(1), local, runScope, scope, depth, stdin, forms));
  }

  private context(
    name: string,
    args: readonly Arg[],
    local: boolean,
    runScope: Scope,
    scope: Scope,
    depth: number,
    stdin: Stdin,
    forms: string[][],
  ): CommandContext {
    const ctx: CommandContext = {
      name,
      args,
      stdin,
      local,
      add: (level, reason) => {
        if (level === "execute-recognised" && runScope.tainted) {
          this.add("execute-other", `${name} runs after PATH or a loader variable changed`);
        } else this.add(level, reason);
      },
      unseen: (reason) => this.unseen(reason),
      run: (argv, nextStdin) => this.argv(argv, runScope, scope, depth + 1, nextStdin ?? stdin, forms),
      runSource: (text, what) => {
        if (text === undefined) {
          const reason = `${what} runs a command string that is not static`;
          this.unseen(reason);
          return;
        }
        this.source(text, { ...scope, tainted: runScope.tainted }, depth + 1);
      },
      writes: (path, what) => this.writes(path, scope, what),
      isInside: (path) => {
        const where = this.locate(path, scope.cwd);
        return where === "inside" ? true : where === "unknown" ? undefined : false;
      },
      setCwd: (path) => {
        if (path === undefined || scope.conditional || scope.cwd === undefined) scope.cwd = undefined;
        else if (path.startsWith("~")) scope.cwd = undefined;
        else scope.cwd = posix.resolve(scope.cwd, path);
      },
      taint: (variable) => {
        if (!isDangerousVariable(variable)) return;
        this.add("execute-other", `sets ${variable}, which changes what commands run`);
        scope.tainted = true;
        runScope.tainted = true;
      },
    };
    return ctx;
  }

  private writes(path: string | undefined, scope: Scope, what: string): void {
    if (path === undefined) return this.add("unknown", `cannot tell where ${what} writes (not static)`);
    switch (this.locate(path, scope.cwd)) {
      case "device":
        return;
      case "inside":
        return this.add("write");
      case "outside":
        return this.add("system_modify", `${what} writes outside the workspace: ${clip(path)}`);
      case "unknown":
        return this.add("unknown", `cannot tell where ${what} writes: ${clip(path)} (working directory unknown)`);
    }
  }

  locate(path: string, cwd: string | undefined): Location {
    if (path.startsWith("~")) return "outside";
    if (DEVICE_PATHS.has(path) || /^\/dev\/fd\/\d+$/.test(path) || /^\/proc\/self\/fd\/\d+$/.test(path))
      return "device";
    let absolute: string;
    if (path.startsWith("/")) absolute = posix.normalize(path);
    else if (cwd === undefined) return "unknown";
    else absolute = posix.resolve(cwd, path);
    absolute = trimSlash(absolute);
    const within = (root: string) => absolute === root || absolute.startsWith(root === "/" ? "/" : `${root}/`);
    return within(this.root) || this.writableRoots.some(within) ? "inside" : "outside";
  }
}
