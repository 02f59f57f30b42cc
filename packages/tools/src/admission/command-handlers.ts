import type { Arg, CommandContext } from "./command-context";

/**
 * Per-command knowledge: what a program does given its parsed arguments. A handler reports findings
 * through the context; a name with no handler is an unrecognised program (execute, not recognised).
 */
export type CommandHandler = (c: CommandContext) => void;

// ---- argument helpers ----

const isOption = (a: Arg | undefined): boolean =>
  a?.value !== undefined && a.value.length > 1 && a.value.startsWith("-");

/**
 * Index of the first operand, skipping options. `withValue` names options whose value is the next
 * word (`-u root`). A non-static word counts as an operand: we cannot tell it is an option.
 */
export function operandIndex(args: readonly Arg[], withValue: ReadonlySet<string> = EMPTY, start = 0): number {
  let i = start;
  while (i < args.length) {
    const v = args[i]!.value;
    if (v === undefined) return i;
    if (v === "--") return i + 1;
    if (!v.startsWith("-") || v === "-") return i;
    if (v.startsWith("--")) {
      if (!v.includes("=") && withValue.has(v)) i++;
      i++;
      continue;
    }
    // A short cluster like `-xvf file`: the first letter taking a value ends the cluster.
    for (let k = 1; k < v.length; k++) {
      if (withValue.has(`-${v[k]}`)) {
        if (k === v.length - 1) i++;
        break;
      }
    }
    i++;
  }
  return i;
}

const EMPTY: ReadonlySet<string> = new Set();
const set = (...items: string[]): ReadonlySet<string> => new Set(items);

/** Operands (non-option words) after `start`, honouring `--`. */
function operands(args: readonly Arg[], withValue: ReadonlySet<string> = EMPTY): Arg[] {
  const out: Arg[] = [];
  let ended = false;
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (!ended && a.value === "--") {
      ended = true;
      continue;
    }
    if (!ended && isOption(a)) {
      const v = a.value!;
      if (withValue.has(v) || (!v.startsWith("--") && v.length === 2 && withValue.has(v))) i++;
      continue;
    }
    out.push(a);
  }
  return out;
}

/** True when a long option or a short flag is present (`-f` also inside clusters like `-xdf`). */
function hasFlag(args: readonly Arg[], long: readonly string[], short = ""): boolean {
  for (const a of args) {
    const v = a.value;
    if (v === undefined) continue;
    if (v === "--") return false;
    if (v.startsWith("--")) {
      if (long.some((l) => v === l || v.startsWith(`${l}=`))) return true;
    } else if (v.startsWith("-") && short) {
      for (const ch of v.slice(1)) if (short.includes(ch)) return true;
    }
  }
  return false;
}

/** Value of `-o FILE`, `-oFILE`, `--output FILE` or `--output=FILE`; undefined value = not static. */
function optionValues(args: readonly Arg[], names: readonly string[]): Array<string | undefined> {
  const out: Array<string | undefined> = [];
  for (let i = 0; i < args.length; i++) {
    const v = args[i]!.value;
    if (v === undefined) continue;
    if (v === "--") break;
    for (const name of names) {
      if (v === name) out.push(args[i + 1]?.value);
      else if (name.startsWith("--") && v.startsWith(`${name}=`)) out.push(v.slice(name.length + 1));
      else if (!name.startsWith("--") && v.startsWith(name) && v.length > name.length && !v.startsWith("--"))
        out.push(v.slice(name.length));
    }
  }
  return out;
}

const shown = (a: Arg | undefined): string => (a === undefined ? "" : (a.value ?? a.text));

// ---- recognised read-ish, test and build commands ----

// prettier-ignore
const READ_COMMANDS = [
  "ls", "ll", "dir", "cat", "pwd", "echo", "printf", "grep", "egrep", "fgrep", "rg", "ag", "ack", "fd", "head",
  "tail", "wc", "cut", "tr", "diff", "cmp", "comm", "stat", "file", "du", "df", "tree", "which", "whereis",
  "type", "whoami", "id", "groups", "date", "uname", "hostname", "printenv", "basename", "dirname", "realpath",
  "readlink", "true", "false", "test", "[", "sleep", "jq", "yq", "nl", "column", "fold", "fmt", "paste", "join",
  "rev", "tac", "md5sum", "sha1sum", "sha256sum", "sha512sum", "cksum", "base64", "xxd", "od", "hexdump",
  "strings", "ps", "pgrep", "free", "uptime", "seq", "expr", "dirs", "set", "unset", "shopt", "read", "wait",
  "jobs", "exit", "return", "shift", "clear", "man", "help", "info", "locale", "nproc", "lscpu", "arch", "tty",
  "getconf", "ulimit", "umask", "hash", "less", "more", ":", "lsof", "env-check", "git-lfs", "tput",
] as const;

// prettier-ignore
const BUILD_COMMANDS = [
  "tsc", "vitest", "jest", "mocha", "eslint", "prettier", "pytest", "py.test", "mypy", "ruff", "black",
  "flake8", "pylint", "isort", "cmake", "ninja", "gcc", "g++", "cc", "c++", "clang", "clang++", "rustc",
  "javac", "gofmt", "shellcheck", "tsx-check",
] as const;

const recognised: CommandHandler = (c) => c.add("execute-recognised");

// ---- programs that write files: every target is checked against the workspace ----

/** Which operands a file-changing command writes. */
function mutator(opts: {
  recognised: boolean;
  /** Operands that are not paths (chmod's mode, chown's owner). */
  skip?: number;
  /** Only the last operand (or -t DIR) is written: cp, ln, install. */
  destinationOnly?: boolean;
  withValue?: ReadonlySet<string>;
}): CommandHandler {
  return (c) => {
    c.add(
      opts.recognised ? "execute-recognised" : "execute-other",
      opts.recognised ? undefined : `${c.name} changes files`,
    );
    const targetDirs = optionValues(c.args, ["-t", "--target-directory"]);
    let ops = operands(c.args, opts.withValue);
    if (opts.skip && !hasFlag(c.args, ["--reference"])) ops = ops.slice(opts.skip);
    if (opts.destinationOnly) {
      if (targetDirs.length > 0) {
        for (const dir of targetDirs) c.writes(dir, c.name);
        return;
      }
      ops = ops.length > 1 ? ops.slice(-1) : ops;
    }
    for (const dir of targetDirs) c.writes(dir, c.name);
    for (const op of ops) c.writes(op.value, c.name);
  };
}

// ---- wrappers: run another command ----

/** `sudo`, `doas`, `pkexec`: root, whatever runs next. */
function asRoot(withValue: ReadonlySet<string>): CommandHandler {
  return (c) => {
    c.add("system_modify", `${c.name} runs a command as root`);
    const i = operandIndex(c.args, withValue);
    if (i < c.args.length) c.run(c.args.slice(i));
  };
}

/** Wrappers that run their operand as a command after options: nohup, nice, setsid… */
function wrapper(withValue: ReadonlySet<string> = EMPTY, skipOperands = 0): CommandHandler {
  return (c) => {
    const i = operandIndex(c.args, withValue) + skipOperands;
    if (i < c.args.length) c.run(c.args.slice(i));
    else c.add("execute-recognised");
  };
}

const env: CommandHandler = (c) => {
  const withValue = set("-u", "--unset", "-C", "--chdir", "-S", "--split-string");
  const split = optionValues(c.args, ["-S", "--split-string"]);
  for (const s of split) c.runSource(s, "env -S");
  for (const dir of optionValues(c.args, ["-C", "--chdir"])) c.setCwd(dir);
  let i = operandIndex(c.args, withValue);
  // NAME=VALUE words before the command set its environment.
  while (i < c.args.length) {
    const v = c.args[i]!.value;
    const eq = v?.indexOf("=") ?? -1;
    if (v === undefined || eq <= 0 || !/^[A-Za-z_][A-Za-z0-9_]*$/.test(v.slice(0, eq))) break;
    c.taint(v.slice(0, eq));
    i++;
  }
  if (i < c.args.length) c.run(c.args.slice(i));
  else if (split.length === 0) c.add("execute-recognised");
};

const timeCommand: CommandHandler = (c) => {
  for (const file of optionValues(c.args, ["-o", "--output"])) c.writes(file, "time -o");
  wrapper(set("-f", "--format", "-o", "--output"))(c);
};

const exec: CommandHandler = wrapper(set("-a"));

const command: CommandHandler = (c) => {
  // `command -v x` only looks the name up.
  if (hasFlag(c.args, [], "vV")) return c.add("execute-recognised");
  wrapper()(c);
};

const xargs: CommandHandler = (c) => {
  // prettier-ignore
  const withValue = set(
    "-a", "-d", "-E", "-I", "-L", "-n", "-P", "-s", "--arg-file", "--delimiter", "--eof", "--replace",
    "--max-lines", "--max-args", "--max-procs", "--max-chars", "--process-slot-var",
  );
  const i = operandIndex(c.args, withValue);
  const argv = i < c.args.length ? c.args.slice(i) : [{ value: "echo", text: "echo" }];
  // The command gets more arguments from stdin: unknown words, so path checks cannot pass them.
  c.run([...argv, { value: undefined, text: "<stdin>" }]);
};

const timeout: CommandHandler = wrapper(set("-s", "--signal", "-k", "--kill-after"), 1);

const watch: CommandHandler = (c) => {
  const i = operandIndex(c.args, set("-n", "--interval", "-d", "--differences"));
  const rest = c.args.slice(i);
  if (rest.length === 0) return c.add("execute-recognised");
  // Without -x, watch joins its arguments and runs them through `sh -c`.
  if (hasFlag(c.args, ["--exec"], "x")) return c.run(rest);
  c.runSource(rest.some((a) => a.value === undefined) ? undefined : rest.map((a) => a.value).join(" "), "watch");
};

const chroot: CommandHandler = (c) => {
  c.add("system_modify", "chroot changes the root directory");
  const i = operandIndex(c.args, set("--userspec", "--groups")) + 1;
  if (i < c.args.length) c.run(c.args.slice(i));
};

const su: CommandHandler = (c) => {
  c.add("system_modify", "su switches user");
  for (const source of optionValues(c.args, ["-c", "--command"])) c.runSource(source, "su -c");
};

const busybox: CommandHandler = (c) => {
  if (c.args.length > 0) c.run(c.args);
  else c.add("execute-recognised");
};

// ---- shells and interpreters: what they run is code ----

const SHELL_OPTIONS_WITH_VALUE = set("-o", "+o", "-O", "+O", "--rcfile", "--init-file");

const shell: CommandHandler = (c) => {
  let inline = false;
  let readsStdin = false;
  let i = 0;
  for (; i < c.args.length; i++) {
    const v = c.args[i]!.value;
    if (v === undefined) break;
    if (v === "--" || v === "-") {
      i++;
      break;
    }
    if (SHELL_OPTIONS_WITH_VALUE.has(v)) {
      i++;
      continue;
    }
    if (v.startsWith("--")) continue;
    if (v.startsWith("-") || v.startsWith("+")) {
      if (v.startsWith("-") && v.includes("c")) inline = true;
      if (v.startsWith("-") && v.includes("s")) readsStdin = true;
      continue;
    }
    break;
  }
  const operand = c.args[i];
  if (inline) {
    if (operand === undefined) return c.add("execute-recognised");
    return c.runSource(operand.value, `${c.name} -c`);
  }
  if (operand !== undefined && !readsStdin) {
    if (isPipePath(operand)) return runsOutputOf(c, operand);
    return c.add("execute-other", `${c.name} runs the script ${shown(operand)}`);
  }
  runStdin(c, `${c.name} reads commands from stdin`, "shell");
};

/** `/dev/fd/N`, which is what `<(…)` becomes: a pipe from another command, not a file. */
export const isPipePath = (a: Arg | undefined): boolean => a?.value !== undefined && /^\/dev\/fd\/\d+$/.test(a.value);

/** `bash <(curl …)`, `source <(…)`: the code is whatever another command prints, like `curl | bash`. */
function runsOutputOf(c: CommandContext, script: Arg): void {
  c.unseen(`${c.name} runs what ${script.text} prints as code`);
}

/**
 * A shell or interpreter with no script runs whatever arrives on stdin: a here-document we can read
 * (as shell source for a shell; an interpreter's is its own language, code like any script), a file,
 * or anything.
 */
function runStdin(c: CommandContext, why: string, language: "shell" | "other" = "other"): void {
  const stdin = c.stdin;
  if (stdin.kind === "text" && language === "shell") return c.runSource(stdin.text, `${c.name} here-document`);
  if (stdin.kind === "text") return c.add("execute-other", `${c.name} runs the code in its here-document`);
  if (stdin.kind === "file") return c.add("execute-other", `${c.name} runs the script ${stdin.path ?? "<dynamic>"}`);
  c.unseen(why);
}

// prettier-ignore
const PYTHON_MODULES_RECOGNISED = set(
  "pytest", "unittest", "mypy", "ruff", "black", "flake8", "pylint", "doctest", "compileall", "py_compile",
  "json.tool", "isort", "tabnanny", "pyflakes",
);

const python: CommandHandler = (c) => {
  const withValue = set("-W", "-X", "--check-hash-based-pycs");
  for (let i = 0; i < c.args.length; i++) {
    const v = c.args[i]!.value;
    if (v === undefined) return c.add("execute-other", `${c.name} runs ${c.args[i]!.text}`);
    if (v === "--version" || v === "-V" || v === "--help" || v === "-h") return c.add("execute-recognised");
    if (v === "-m" || (v.startsWith("-m") && !v.startsWith("--"))) {
      const moduleName = v === "-m" ? c.args[i + 1]?.value : v.slice(2);
      const rest = c.args.slice(v === "-m" ? i + 2 : i + 1);
      if (moduleName === "pip") return pip({ ...c, name: "pip", args: rest });
      if (moduleName === "venv" || moduleName === "virtualenv") {
        c.add("execute-recognised");
        for (const op of operands(rest)) c.writes(op.value, `${c.name} -m venv`);
        return;
      }
      if (moduleName !== undefined && PYTHON_MODULES_RECOGNISED.has(moduleName)) return c.add("execute-recognised");
      return c.add("execute-other", `${c.name} -m ${moduleName ?? "<dynamic>"} runs a module`);
    }
    if (v === "-c" || (v.startsWith("-c") && !v.startsWith("--")))
      return c.add("execute-other", `${c.name} -c runs inline code`);
    if (withValue.has(v)) {
      i++;
      continue;
    }
    if (v.startsWith("-") && v !== "-") continue;
    if (v === "-") break;
    if (isPipePath(c.args[i])) return runsOutputOf(c, c.args[i]!);
    return c.add("execute-other", `${c.name} runs the script ${v}`);
  }
  runStdin(c, `${c.name} reads code from stdin`);
};

const node: CommandHandler = (c) => {
  const withValue = set(
    "-r",
    "--require",
    "--import",
    "--loader",
    "--experimental-loader",
    "-C",
    "--conditions",
    "--env-file",
    "--input-type",
  );
  for (let i = 0; i < c.args.length; i++) {
    const v = c.args[i]!.value;
    if (v === undefined) return c.add("execute-other", `${c.name} runs ${c.args[i]!.text}`);
    if (v === "--version" || v === "-v" || v === "--help" || v === "-h") return c.add("execute-recognised");
    if (v === "--test") return c.add("execute-recognised");
    if (["-e", "--eval", "-p", "--print"].includes(v)) return c.add("execute-other", `${c.name} ${v} runs inline code`);
    if (withValue.has(v)) {
      i++;
      continue;
    }
    if (v.startsWith("-") && v !== "-") continue;
    if (v === "-") break;
    if (isPipePath(c.args[i])) return runsOutputOf(c, c.args[i]!);
    return c.add("execute-other", `${c.name} runs the script ${v}`);
  }
  runStdin(c, `${c.name} reads code from stdin`);
};

/** perl, ruby, php…: version queries are harmless, everything else is code. */
const interpreter: CommandHandler = (c) => {
  const first = c.args[0]?.value;
  if (first === "--version" || first === "-v" || first === "-V" || first === "--help")
    return c.add("execute-recognised");
  const piped = c.args.find(isPipePath);
  if (piped !== undefined) return runsOutputOf(c, piped);
  if (c.args.length > 0) return c.add("execute-other", `${c.name} runs code`);
  runStdin(c, `${c.name} reads code from stdin`);
};

const evalBuiltin: CommandHandler = (c) => {
  if (c.args.length === 0) return c.add("execute-recognised");
  c.runSource(c.args.some((a) => a.value === undefined) ? undefined : c.args.map((a) => a.value).join(" "), "eval");
};

const trap: CommandHandler = (c) => {
  const i = operandIndex(c.args);
  const action = c.args[i];
  if (action === undefined || c.args.length - i < 2) return c.add("execute-recognised");
  c.runSource(action.value, "trap");
};

const source: CommandHandler = (c) =>
  isPipePath(c.args[0])
    ? runsOutputOf(c, c.args[0]!)
    : c.add("execute-other", `${c.name} runs the shell file ${shown(c.args[0])}`);

// ---- shell state ----

const cd: CommandHandler = (c) => {
  c.add("execute-recognised");
  const i = operandIndex(c.args);
  const target = c.args[i];
  if (target === undefined || target.value === "-" || target.value === "~") return c.setCwd(undefined);
  c.setCwd(target.value);
};

// prettier-ignore
const DANGEROUS_VARIABLES = set(
  "PATH", "LD_PRELOAD", "LD_LIBRARY_PATH", "BASH_ENV", "ENV", "NODE_OPTIONS", "PYTHONPATH", "PYTHONSTARTUP",
  "PERL5OPT", "RUBYOPT", "GIT_SSH_COMMAND", "GIT_EXEC_PATH", "PROMPT_COMMAND", "IFS", "SHELLOPTS", "BASHOPTS",
);
export const isDangerousVariable = (name: string): boolean => DANGEROUS_VARIABLES.has(name);

const declare: CommandHandler = (c) => {
  c.add("execute-recognised");
  for (const a of c.args) {
    const v = a.value ?? a.text;
    const eq = v.indexOf("=");
    if (eq > 0) c.taint(v.slice(0, eq).replace(/\+$/, ""));
  }
};

// ---- text tools that can run commands or write files ----

const awk: CommandHandler = (c) => {
  if (optionValues(c.args, ["-f", "--file"]).length > 0) return c.add("execute-other", `${c.name} runs a program file`);
  const ops = operands(c.args, set("-v", "-F", "--assign", "--field-separator"));
  const program = ops[0];
  if (program === undefined) return c.add("execute-recognised");
  if (program.value === undefined) return c.add("execute-other", `${c.name} program is not static`);
  // awk's system(), pipes and print-redirects run commands or write files.
  if (/\bsystem\s*\(|(^|[^|])\|($|[^|])|\bprintf?\b[^;}]*>/.test(program.value)) {
    return c.add("execute-other", `${c.name} program can run commands or write files`);
  }
  c.add("execute-recognised");
};

/** GNU sed commands `e`, `w`, `W`, `r`, `R` and `s///e|w` flags run commands or touch files. */
export function sedScriptIsRisky(script: string): boolean {
  const address =
    /^\s*(?:\d+|\$|\/(?:[^/\\]|\\.)*\/[IM]*)?\s*(?:,\s*(?:\d+|\$|\/(?:[^/\\]|\\.)*\/[IM]*|[~+]\d+))?\s*!?\s*/;
  for (const segment of script.split(/[;\n]/)) {
    let s = segment.replace(address, "");
    while (s.startsWith("{") || s.startsWith("}")) s = s.slice(1).replace(address, "");
    const cmd = s[0];
    if (cmd === undefined) continue;
    if ("ewWrR".includes(cmd)) return true;
    if (cmd === "s" && s.length > 1) {
      const delim = s[1]!;
      let seen = 0;
      let k = 2;
      for (; k < s.length && seen < 2; k++) {
        if (s[k] === "\\") k++;
        else if (s[k] === delim) seen++;
      }
      if (/[ew]/.test(s.slice(k))) return true;
    }
  }
  return false;
}

const sed: CommandHandler = (c) => {
  if (optionValues(c.args, ["-f", "--file"]).length > 0) return c.add("execute-other", `${c.name} runs a script file`);
  const scripts = optionValues(c.args, ["-e", "--expression"]);
  let ops = operands(c.args, set("-e", "--expression", "-l", "--line-length", "-f", "--file"));
  if (scripts.length === 0) {
    const first = ops[0];
    if (first !== undefined) scripts.push(first.value);
    ops = ops.slice(1);
  }
  if (scripts.some((s) => s === undefined || sedScriptIsRisky(s))) {
    c.add("execute-other", `${c.name} script can run commands or write files`);
  } else c.add("execute-recognised");
  if (hasFlag(c.args, ["--in-place"], "i")) for (const op of ops) c.writes(op.value, `${c.name} -i`);
};

const sort: CommandHandler = (c) => {
  c.add("execute-recognised");
  for (const file of optionValues(c.args, ["-o", "--output"])) c.writes(file, "sort -o");
};

const uniq: CommandHandler = (c) => {
  c.add("execute-recognised");
  const ops = operands(c.args, set("-f", "-s", "-w", "--skip-fields", "--skip-chars", "--check-chars"));
  if (ops[1] !== undefined) c.writes(ops[1].value, "uniq");
};

const dd: CommandHandler = (c) => {
  c.add("execute-other", "dd writes raw data");
  for (const a of c.args) {
    if (a.value === undefined) c.writes(undefined, "dd");
    else if (a.value.startsWith("of=")) c.writes(a.value.slice(3), "dd of=");
  }
};

const LN_WITH_VALUE = set("-t", "--target-directory", "-S", "--suffix");

/** A link to a path outside the workspace lets later writes through it leave the workspace. */
const ln: CommandHandler = (c) => {
  mutator({ recognised: true, destinationOnly: true, withValue: LN_WITH_VALUE })(c);
  const ops = operands(c.args, LN_WITH_VALUE);
  const sources = optionValues(c.args, ["-t", "--target-directory"]).length > 0 ? ops : ops.slice(0, -1);
  for (const source of sources) {
    if (source.value === undefined || c.isInside(source.value) !== true) {
      c.add("unknown", `ln links to ${shown(source)}, outside the workspace: writes through the link would leave it`);
    }
  }
};

const find: CommandHandler = (c) => {
  const starts: Arg[] = [];
  let i = 0;
  for (; i < c.args.length; i++) {
    const v = c.args[i]!.value;
    if (v !== undefined && (v.startsWith("-") || v === "(" || v === "!")) break;
    starts.push(c.args[i]!);
  }
  if (starts.length === 0) starts.push({ value: ".", text: "." });
  let plain = true;
  for (; i < c.args.length; i++) {
    const v = c.args[i]!.value;
    if (v === "-exec" || v === "-execdir" || v === "-ok" || v === "-okdir") {
      const argv: Arg[] = [];
      for (i++; i < c.args.length; i++) {
        const w = c.args[i]!;
        if (w.value === ";" || w.value === "+") break;
        // `{}` stands for each file found under the start points.
        if (w.value === "{}") argv.push(...starts);
        else argv.push(w);
      }
      if (argv.length > 0) c.run(argv);
      plain = false;
    } else if (v === "-delete") {
      c.add("execute-other", "find -delete removes files");
      for (const s of starts) c.writes(s.value, "find -delete");
      plain = false;
    } else if (v === "-fprint" || v === "-fprint0" || v === "-fprintf" || v === "-fls") {
      c.writes(c.args[i + 1]?.value, `find ${v}`);
    }
  }
  if (plain) c.add("execute-recognised");
};

// ---- git ----

const GIT_GLOBAL_WITH_VALUE = set("-C", "-c", "--git-dir", "--work-tree", "--namespace", "--exec-path", "--config-env");
// prettier-ignore
const GIT_READ = set(
  "status", "diff", "log", "show", "rev-parse", "ls-files", "blame", "grep", "describe", "shortlog",
  "merge-base", "cat-file", "ls-tree", "rev-list", "version", "help", "whatchanged", "count-objects",
  "name-rev", "show-ref", "for-each-ref", "check-ignore", "var", "annotate", "diff-tree", "diff-files",
  "diff-index", "range-diff",
);
const GIT_LOCAL_WRITE = set(
  "add",
  "commit",
  "init",
  "switch",
  "mv",
  "apply",
  "merge",
  "cherry-pick",
  "revert",
  "am",
  "notes",
);
const GIT_NETWORK = set("clone", "fetch", "pull", "push", "ls-remote", "archive", "request-pull", "send-email");

const git: CommandHandler = (c) => {
  const i = operandIndex(c.args, GIT_GLOBAL_WITH_VALUE);
  // -c can define aliases and hooks (`alias.x=!sh`, core.sshCommand): not a plain git call any more.
  const configured = optionValues(c.args.slice(0, i), ["-c", "--config-env"]).length > 0;
  const sub = c.args[i]?.value;
  const rest = c.args.slice(i + 1);
  if (c.args.slice(0, i).some((a) => a.value === "--version" || a.value === "--help") && sub === undefined) {
    return c.add("execute-recognised");
  }
  // A subcommand or an argument of push/reset/clean that expands at run time could be the one class
  // that stays denied (`git $(echo reset) --hard`, `git push $FLAGS`): code we cannot see.
  if (sub === undefined) {
    return c.args[i] === undefined
      ? c.add("execute-recognised")
      : c.unseen(`git subcommand ${shown(c.args[i])} is not static: it could be a destructive one`);
  }
  if (configured) c.add("execute-other", "git -c overrides configuration (aliases, hooks, ssh command)");
  const dynamic = rest.find((a) => a.value === undefined);
  const unseenArgument = (): void => {
    if (dynamic) c.unseen(`git ${sub} argument ${dynamic.text} is not static: it could make the ${sub} destructive`);
  };

  switch (sub) {
    case "push": {
      c.add("network", "git push talks to a remote");
      const force = hasFlag(rest, ["--force", "--force-with-lease", "--force-if-includes", "--mirror"], "f");
      const plusRefspec = operands(rest, set("--repo", "-o", "--push-option", "--receive-pack", "--exec")).some(
        (a) => a.value?.startsWith("+") === true,
      );
      if (force || plusRefspec) return c.add("git_destructive", "git push --force rewrites remote history");
      return unseenArgument();
    }
    case "reset":
      if (hasFlag(rest, ["--hard"])) return c.add("git_destructive", "git reset --hard discards uncommitted work");
      c.add("execute-other", "git reset moves the branch head");
      return unseenArgument();
    case "clean":
      if (hasFlag(rest, ["--force"], "f")) return c.add("git_destructive", "git clean -f deletes untracked files");
      c.add("execute-recognised");
      return unseenArgument();
    case "checkout": {
      const discards = hasFlag(rest, ["--force"], "f") || rest.some((a) => a.value === "--" || a.value === ".");
      return discards ? c.add("execute-other", "git checkout can discard changes") : c.add("execute-recognised");
    }
    case "branch":
      return hasFlag(rest, ["--force"], "Df") && !hasFlag(rest, ["--list"])
        ? c.add("execute-other", "git branch -D deletes unmerged work")
        : c.add("execute-recognised");
    case "stash": {
      const action = rest[0]?.value;
      return action === "drop" || action === "clear"
        ? c.add("execute-other", `git stash ${action} discards stashed work`)
        : c.add("execute-recognised");
    }
    case "tag":
      return hasFlag(rest, ["--delete"], "d")
        ? c.add("execute-other", "git tag -d deletes a tag")
        : c.add("execute-recognised");
    case "remote": {
      const action = rest[0]?.value;
      if (action === "update") return c.add("network", "git remote update fetches");
      return action === undefined || action === "-v" || action === "show" || action === "get-url"
        ? c.add("execute-recognised")
        : c.add("execute-other", `git remote ${action ?? ""} changes remotes`);
    }
    case "config":
      return hasFlag(rest, ["--get", "--list", "--get-all", "--get-regexp", "--show-origin"], "l") ||
        rest[0]?.value === "get" ||
        rest[0]?.value === "list"
        ? c.add("execute-recognised")
        : c.add("execute-other", "git config changes configuration");
    case "reflog": {
      const action = rest[0]?.value;
      return action === "expire" || action === "delete"
        ? c.add("execute-other", `git reflog ${action} drops history`)
        : c.add("execute-recognised");
    }
    case "submodule":
      return c.add("network", "git submodule fetches from remotes");
    case "worktree":
      return rest[0]?.value === "list"
        ? c.add("execute-recognised")
        : c.add("execute-other", "git worktree changes worktrees");
  }
  if (GIT_NETWORK.has(sub)) return c.add("network", `git ${sub} talks to a remote`);
  if (GIT_READ.has(sub) || GIT_LOCAL_WRITE.has(sub)) return c.add("execute-recognised");
  c.add("execute-other", `git ${sub} is not a recognised git command`);
};

// ---- JavaScript package managers ----

/** Script names treated as tests/builds (`npm run build`, `pnpm test:unit`…). */
const SAFE_SCRIPT = /^(build|test|tests|lint|typecheck|type-check|check|format|fmt|compile|coverage)(:[\w.-]+)?$/;
// prettier-ignore
const NPM_INSTALL = set(
  "install", "i", "in", "ins", "inst", "insta", "instal", "isnt", "isnta", "isntal", "add", "ci", "clean-install",
  "update", "up", "upgrade", "udpate", "uninstall", "un", "unlink", "remove", "rm", "r", "link", "ln", "dedupe", "ddp",
);
const NPM_READ = set(
  "ls",
  "list",
  "ll",
  "la",
  "why",
  "explain",
  "prefix",
  "root",
  "bin",
  "help",
  "query",
  "completion",
  "help-search",
);
// prettier-ignore
const NPM_NETWORK = set(
  "outdated", "view", "v", "info", "show", "search", "s", "se", "find", "audit", "ping", "whoami", "publish",
  "unpublish", "deprecate", "dist-tag", "owner", "access", "token", "adduser", "login", "logout", "repo", "docs",
  "bugs", "fund", "doctor", "exec", "x", "dlx", "create", "init",
);
const NPM_WITH_VALUE = set("--prefix", "-C", "--dir", "-w", "--workspace", "--filter", "-F", "--cwd", "--loglevel");

function runScript(c: CommandContext, script: Arg | undefined): void {
  if (script === undefined) return c.add("execute-recognised");
  if (script.value !== undefined && SAFE_SCRIPT.test(script.value)) return c.add("execute-recognised");
  c.add("execute-other", `${c.name} runs the package script ${shown(script)}`);
}

const packageManager: CommandHandler = (c) => {
  const pm = c.name;
  const i = operandIndex(c.args, NPM_WITH_VALUE);
  const sub = c.args[i];
  const rest = c.args.slice(i + 1);
  const global = hasFlag(c.args, ["--global", "--location"], "g") && !hasFlag(c.args, ["--location=project"]);
  if (sub === undefined) {
    // Bare `yarn`, `pnpm`, `bun` install dependencies; bare npm prints help.
    if (pm === "npm" || c.args.length > 0) return c.add("execute-recognised");
    return c.add("network", `${pm} installs dependencies`);
  }
  const s = sub.value;
  if (s === undefined) return c.add("execute-other", `${pm} subcommand is not static`);
  if (pm === "yarn" && s === "global") return c.add("system_modify", "yarn global installs outside the workspace");
  if (NPM_INSTALL.has(s) || (pm === "bun" && s === "pm")) {
    if (global || (pm === "npm" && (s === "link" || s === "ln") && rest.length === 0)) {
      return c.add("system_modify", `${pm} ${s} -g installs packages outside the workspace`);
    }
    return c.add("network", `${pm} ${s} downloads packages`);
  }
  if (s === "test" || s === "t" || s === "tst") return c.add("execute-recognised");
  if (s === "run" || s === "run-script" || s === "rum" || s === "urn") {
    const script = rest[operandIndex(rest)];
    if (pm === "bun" && script?.value !== undefined && /\.[cm]?[jt]sx?$/.test(script.value)) {
      return c.add("execute-other", `bun runs ${script.value}`);
    }
    return runScript(c, script);
  }
  if (NPM_READ.has(s) || s === "--version" || s === "-v" || (s === "version" && rest.length === 0))
    return c.add("execute-recognised");
  if (s === "config" || s === "c") {
    const action = rest[0]?.value;
    return action === "get" || action === "list" || action === "ls"
      ? c.add("execute-recognised")
      : c.add("execute-other", `${pm} config changes configuration`);
  }
  if (NPM_NETWORK.has(s)) return c.add("network", `${pm} ${s} talks to the registry`);
  if (pm !== "npm") return runScript(c, sub); // `yarn build`, `pnpm lint` run scripts directly
  c.add("execute-other", `npm ${s} is not a recognised npm command`);
};

const NPX_RECOGNISED = set("tsc", "vitest", "jest", "mocha", "eslint", "prettier", "playwright", "turbo", "tsc-alias");

const npx: CommandHandler = (c) => {
  const i = operandIndex(c.args, set("-p", "--package", "-c", "--call"));
  const tool = c.args[i]?.value;
  if (hasFlag(c.args, ["--call"], "c")) return c.add("execute-other", "npx -c runs a command string");
  if (tool !== undefined && NPX_RECOGNISED.has(tool)) {
    if (tool === "turbo" || tool === "playwright") return runScript(c, c.args[i + 1]);
    return c.add("execute-recognised");
  }
  c.add("network", `${c.name} may download and run ${tool ?? "a package"}`);
};

// ---- other language toolchains ----

const pip: CommandHandler = (c) => {
  const i = operandIndex(c.args, set("--python", "--log", "--proxy", "--cache-dir"));
  const sub = c.args[i]?.value;
  const rest = c.args.slice(i + 1);
  if (sub === "install" || sub === "uninstall") {
    const targets = optionValues(rest, ["-t", "--target", "--prefix", "--root"]);
    const local = c.local || (targets.length > 0 && targets.every((t) => t !== undefined && c.isInside(t) === true));
    if (local || hasFlag(rest, ["--dry-run"])) return c.add("network", `${c.name} ${sub} downloads packages`);
    return c.add("system_modify", `${c.name} ${sub} changes packages outside the workspace`);
  }
  if (sub === "download" || sub === "search" || sub === "index")
    return c.add("network", `${c.name} ${sub} talks to the index`);
  if (
    sub === undefined ||
    ["list", "show", "freeze", "check", "help", "--version", "-V", "debug", "inspect"].includes(sub)
  ) {
    return c.add("execute-recognised");
  }
  c.add("execute-other", `${c.name} ${sub} is not a recognised pip command`);
};

const go: CommandHandler = (c) => {
  const sub = c.args[0]?.value;
  const rest = c.args.slice(1);
  if (sub === undefined) return c.add(c.args.length ? "execute-other" : "execute-recognised");
  if (["test", "build", "vet", "fmt", "version", "env", "list", "doc", "help"].includes(sub)) {
    return sub === "env" && hasFlag(rest, [], "w")
      ? c.add("execute-other", "go env -w changes settings")
      : c.add("execute-recognised");
  }
  if (sub === "get") return c.add("network", "go get downloads modules");
  if (sub === "mod") {
    const action = rest[0]?.value;
    return action === "download" || action === "tidy" || action === "vendor" || action === "get"
      ? c.add("network", `go mod ${action} downloads modules`)
      : c.add("execute-recognised");
  }
  if (sub === "install") return c.add("system_modify", "go install writes binaries outside the workspace");
  if (sub === "clean" && hasFlag(rest, ["-modcache", "-cache"]))
    return c.add("system_modify", "go clean removes caches outside the workspace");
  c.add("execute-other", `go ${sub} runs code`);
};

const cargo: CommandHandler = (c) => {
  const i = operandIndex(c.args, set("-C", "--config", "-Z"));
  const sub = c.args[i]?.value;
  if (sub === undefined) return c.add("execute-recognised");
  if (
    [
      "build",
      "b",
      "test",
      "t",
      "check",
      "c",
      "clippy",
      "fmt",
      "doc",
      "d",
      "bench",
      "tree",
      "metadata",
      "version",
      "help",
      "new",
      "init",
      "--version",
      "-V",
    ].includes(sub)
  ) {
    return c.add("execute-recognised");
  }
  if (sub === "install" || sub === "uninstall")
    return c.add("system_modify", `cargo ${sub} changes binaries outside the workspace`);
  if (
    [
      "fetch",
      "update",
      "add",
      "remove",
      "search",
      "publish",
      "login",
      "owner",
      "yank",
      "generate-lockfile",
      "vendor",
    ].includes(sub)
  ) {
    return c.add("network", `cargo ${sub} talks to the registry`);
  }
  c.add("execute-other", `cargo ${sub} runs code`);
};

const make: CommandHandler = (c) => {
  const targets = operands(c.args, set("-C", "-f", "--file", "--directory", "-I", "-j", "-l", "-o", "-W"));
  if (targets.some((t) => t.value === "install" || t.value === "uninstall")) {
    return c.add("system_modify", "make install writes outside the workspace");
  }
  c.add("execute-recognised");
};

const deno: CommandHandler = (c) => {
  const sub = c.args[0]?.value;
  if (sub === "test" || sub === "check" || sub === "lint" || sub === "fmt" || sub === "--version")
    return c.add("execute-recognised");
  c.add("execute-other", `deno ${sub ?? ""} runs code`);
};

const dotnet: CommandHandler = (c) => {
  const sub = c.args[0]?.value;
  if (sub === "test" || sub === "build" || sub === "--version" || sub === "--info") return c.add("execute-recognised");
  if (sub === "restore" || sub === "add") return c.add("network", `dotnet ${sub} downloads packages`);
  if (sub === "tool" && c.args.some((a) => a.value === "-g" || a.value === "--global")) {
    return c.add("system_modify", "dotnet tool -g installs outside the workspace");
  }
  c.add("execute-other", `dotnet ${sub ?? ""} runs code`);
};

const mvn: CommandHandler = (c) => {
  const goals = operands(c.args, set("-f", "-P", "-D", "-pl", "-s"));
  const safe = ["test", "compile", "package", "verify", "validate", "clean", "test-compile"];
  if (goals.length > 0 && goals.every((g) => g.value !== undefined && safe.includes(g.value))) {
    return c.add("execute-recognised");
  }
  c.add("execute-other", `${c.name} runs build goals`);
};

// ---- network ----

// prettier-ignore
const NETWORK_TOOLS = [
  "ssh", "scp", "sftp", "rsync", "nc", "ncat", "netcat", "socat", "telnet", "ftp", "ping", "dig", "nslookup",
  "host", "traceroute", "aria2c", "http", "https", "gh", "kubectl", "helm", "aws", "gcloud", "az", "ssh-keyscan",
  "ssh-copy-id", "git-remote-http", "lftp", "mosh", "bunx", "pnpx",
] as const;

const network: CommandHandler = (c) => c.add("network", `${c.name} talks to the network`);

const curl: CommandHandler = (c) => {
  c.add("network", `${c.name} talks to the network`);
  for (const file of optionValues(c.args, [
    "-o",
    "--output",
    "--output-dir",
    "-c",
    "--cookie-jar",
    "-D",
    "--dump-header",
    "--trace",
    "--trace-ascii",
    "--stderr",
  ])) {
    if (file !== "-") c.writes(file, "curl");
  }
  if (hasFlag(c.args, ["--remote-name", "--remote-name-all"], "OJ")) c.writes(".", "curl -O");
};

const wget: CommandHandler = (c) => {
  c.add("network", `${c.name} talks to the network`);
  for (const file of optionValues(c.args, [
    "-O",
    "--output-document",
    "-P",
    "--directory-prefix",
    "-o",
    "--output-file",
    "-a",
    "--append-output",
  ])) {
    if (file !== "-") c.writes(file, "wget");
  }
  c.writes(".", "wget");
};

// ---- the host system ----

/** A system tool whose listed subcommands or flags only read; anything else changes the system. */
function systemTool(
  readSubcommands: readonly string[],
  why: string,
  withValue: ReadonlySet<string> = EMPTY,
): CommandHandler {
  const reads = new Set(readSubcommands);
  return (c) => {
    const sub = c.args[operandIndex(c.args, withValue)]?.value;
    const flags = c.args.filter(isOption).map((a) => a.value!);
    if (
      (sub !== undefined && reads.has(sub)) ||
      flags.some((f) => reads.has(f)) ||
      (c.args.length === 0 && reads.has(""))
    ) {
      return c.add("execute-recognised");
    }
    c.add("system_modify", `${c.name} ${why}`);
  };
}

const systemModify =
  (why: string): CommandHandler =>
  (c) =>
    c.add("system_modify", `${c.name} ${why}`);

const APT_READ = [
  "list",
  "search",
  "show",
  "showsrc",
  "policy",
  "depends",
  "rdepends",
  "changelog",
  "madison",
  "help",
  "",
  "--version",
  "-s",
  "--simulate",
  "--dry-run",
];
const RPM_READ = ["list", "info", "search", "repolist", "provides", "check-update", "help", "", "--version"];

// prettier-ignore
const SYSTEM_ALWAYS = [
  "mount", "umount", "useradd", "userdel", "usermod", "groupadd", "groupdel", "groupmod", "adduser", "deluser",
  "passwd", "chpasswd", "chage", "visudo", "iptables", "ip6tables", "nft", "ufw", "modprobe", "insmod", "rmmod",
  "shutdown", "reboot", "halt", "poweroff", "init", "telinit", "fdisk", "sfdisk", "parted", "mkswap", "swapon",
  "swapoff", "ldconfig", "update-alternatives", "chsh", "setcap", "update-rc.d", "update-ca-certificates",
  "locale-gen", "timedatectl", "hostnamectl", "losetup", "sudoedit", "mkfs", "mke2fs", "snap", "zypper", "port",
  "flatpak", "emerge", "nix-env",
] as const;

// ---- the table ----

const table = new Map<string, CommandHandler>();
const register = (names: readonly string[], handler: CommandHandler) => {
  for (const name of names) table.set(name, handler);
};

register(READ_COMMANDS, recognised);
register(BUILD_COMMANDS, recognised);
register(["mkdir", "touch", "chmod", "tee", "mv"], mutator({ recognised: true, skip: 0 }));
table.set("chmod", mutator({ recognised: true, skip: 1 }));
table.set("cp", mutator({ recognised: true, destinationOnly: true, withValue: LN_WITH_VALUE }));
register(["rm", "rmdir", "shred", "unlink"], mutator({ recognised: false }));
table.set("truncate", mutator({ recognised: false, withValue: set("-s", "--size", "-r", "--reference") }));
register(["chown", "chgrp"], mutator({ recognised: false, skip: 1 }));
table.set(
  "install",
  mutator({
    recognised: false,
    destinationOnly: true,
    withValue: set("-m", "--mode", "-o", "--owner", "-g", "--group", "-t", "--target-directory"),
  }),
);
table.set("ln", ln);
table.set("dd", dd);
table.set("sort", sort);
table.set("uniq", uniq);
table.set("find", find);
table.set("awk", awk);
register(["gawk", "mawk", "nawk"], awk);
table.set("sed", sed);
table.set("cd", cd);
register(["pushd", "popd"], cd);
register(["export", "declare", "typeset", "local", "readonly"], declare);

register(
  ["sudo"],
  asRoot(
    set(
      "-u",
      "-g",
      "-h",
      "-p",
      "-C",
      "-D",
      "-r",
      "-t",
      "-U",
      "-T",
      "--user",
      "--group",
      "--host",
      "--prompt",
      "--chdir",
      "--close-from",
      "--role",
      "--type",
      "--other-user",
      "--command-timeout",
    ),
  ),
);
register(["doas"], asRoot(set("-u", "-C")));
register(["pkexec"], asRoot(set("--user")));
table.set("su", su);
table.set("env", env);
register(["nohup", "setsid", "unbuffer"], wrapper());
table.set("time", timeCommand);
table.set("nice", wrapper(set("-n", "--adjustment")));
table.set("ionice", wrapper(set("-c", "-n", "-p", "-P", "-u", "--class", "--classdata")));
table.set("stdbuf", wrapper(set("-i", "-o", "-e", "--input", "--output", "--error")));
table.set("timeout", timeout);
table.set("exec", exec);
table.set("command", command);
table.set("builtin", wrapper());
table.set("xargs", xargs);
table.set("watch", watch);
table.set("chroot", chroot);
table.set("busybox", busybox);

register(["bash", "sh", "dash", "zsh", "ksh", "ash", "mksh"], shell);
register(["python", "python3", "python2", "pypy", "pypy3"], python);
register(["node", "nodejs"], node);
register(["perl", "ruby", "php", "Rscript", "julia", "octave", "lua", "fish", "tclsh", "tsx", "ts-node"], interpreter);
table.set("eval", evalBuiltin);
table.set("trap", trap);
register(["source", "."], source);

table.set("git", git);
register(["npm", "pnpm", "yarn", "bun"], packageManager);
table.set("npx", npx);
register(["pip", "pip3"], pip);
table.set("go", go);
table.set("cargo", cargo);
register(["make", "gmake"], make);
table.set("deno", deno);
table.set("dotnet", dotnet);
register(["mvn", "gradle", "./gradlew", "./mvnw"], mvn);

register(NETWORK_TOOLS, network);
table.set("curl", curl);
table.set("wget", wget);

register(["apt", "apt-get", "aptitude"], systemTool(APT_READ, "changes system packages", set("-o", "-t", "-c")));
table.set("apt-cache", recognised);
table.set("dpkg-query", recognised);
table.set(
  "dpkg",
  systemTool(
    [
      "-l",
      "-L",
      "-s",
      "-S",
      "-p",
      "--list",
      "--listfiles",
      "--status",
      "--search",
      "--print-architecture",
      "--get-selections",
      "--version",
      "--help",
    ],
    "changes system packages",
  ),
);
register(["yum", "dnf", "microdnf"], systemTool(RPM_READ, "changes system packages"));
table.set(
  "apk",
  systemTool(["info", "search", "list", "policy", "stats", "--version", "-V"], "changes system packages"),
);
table.set(
  "brew",
  systemTool(
    ["list", "ls", "info", "search", "--version", "config", "doctor", "leaves", "deps", "outdated"],
    "changes system packages",
  ),
);
table.set(
  "gem",
  systemTool(
    ["list", "info", "env", "--version", "contents", "which", "help", "search", "query"],
    "changes system gems",
  ),
);
table.set("pacman", systemTool(["-Q", "-Qi", "-Ql", "-Ss", "-Si", "--query", "--version"], "changes system packages"));
table.set("rpm", systemTool(["-q", "-qa", "-qi", "-ql", "--query", "--version"], "changes system packages"));
table.set("pipx", systemTool(["list", "--version", "environment"], "changes tools outside the workspace"));
register(
  ["conda", "mamba", "micromamba"],
  systemTool(["list", "info", "search", "--version"], "changes environments outside the workspace"),
);
table.set(
  "systemctl",
  systemTool(
    ["status", "is-active", "is-enabled", "is-failed", "list-units", "list-unit-files", "show", "cat", "--version"],
    "changes system services",
  ),
);
table.set("service", (c) =>
  c.args[1]?.value === "status"
    ? c.add("execute-recognised")
    : c.add("system_modify", "service changes system services"),
);
table.set("sysctl", (c) =>
  c.args.some((a) => a.value === "-w" || a.value === undefined || a.value.includes("="))
    ? c.add("system_modify", "sysctl -w changes kernel settings")
    : c.add("execute-recognised"),
);
table.set("crontab", systemTool(["-l"], "changes scheduled jobs"));
register(
  ["docker", "podman", "nerdctl"],
  systemTool(
    ["ps", "images", "version", "info", "inspect", "logs", "--version", "stats", "top"],
    "controls containers outside the sandbox",
  ),
);
register(SYSTEM_ALWAYS, systemModify("changes the system"));

export function commandHandler(name: string): CommandHandler | undefined {
  if (name.startsWith("mkfs.")) return systemModify("formats a filesystem");
  return table.get(name);
}
