import type { Arg, CommandContext } from "../command-context";
import type { CommandFamily, CommandHandler } from "../command-family";
import { isPipePath, operandIndex, operands, set, shown } from "../command-args";
import { pip } from "./package-manager-commands";

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

/** Shells and interpreters: what they run is code, read from a file, a string or stdin. */
export const INTERPRETER_COMMANDS: CommandFamily = {
  family: "shells and interpreters",
  rules: [
    { names: ["bash", "sh", "dash", "zsh", "ksh", "ash", "mksh"], handler: shell },
    { names: ["python", "python3", "python2", "pypy", "pypy3"], handler: python },
    { names: ["node", "nodejs"], handler: node },
    {
      names: ["perl", "ruby", "php", "Rscript", "julia", "octave", "lua", "fish", "tclsh", "tsx", "ts-node"],
      handler: interpreter,
    },
    { names: ["eval"], handler: evalBuiltin },
    { names: ["trap"], handler: trap },
    { names: ["source", "."], handler: source },
  ],
};
