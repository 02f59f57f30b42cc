import { posix } from "node:path";
import { staticArg } from "./command-context";
import { CommandWalk, NO_STDIN } from "./command-walk";
import { clip } from "./shell-words";
import type { ActionClass } from "@berth/protocol";

export interface ClassifyOptions {
  /** Absolute path of the workspace root, e.g. `/workspace`. */
  workspaceRoot: string;
  /** Working directory the command starts in (absolute, or relative to the root); defaults to the root. */
  cwd?: string;
  /** Extra absolute folders where writes count as inside (e.g. a scratch `/tmp`); none by default. */
  writableRoots?: readonly string[];
}

/** One simple command as policy rules see it: its words, and the forms it takes once unwrapped. */
export interface SimpleCommand {
  /** Word values (source text where a word is not static). */
  readonly words: readonly string[];
  /** `words`, then each command it runs: `sudo -u x rm -rf /` → […], [`rm`, `-rf`, `/`]. */
  readonly forms: readonly (readonly string[])[];
}

export interface CommandClassification {
  actionClass: ActionClass;
  /** Every part is a known program (for execute: on the tests/builds/read-ish allowlist). */
  recognised: boolean;
  /** Code runs that cannot be seen before it runs (a command name from `$(…)`/`$VAR`, `eval "$X"`, `curl … | sh`…). */
  alwaysAsk: boolean;
  reasons: string[];
  commands: SimpleCommand[];
  /** `$(…)`, backticks and `<(…)`/`>(…)` on the line, each classified as a command of its own. */
  substitutions: number;
}

/**
 * Classifies a shell command from its parsed structure (unbash): pipelines, lists, subshells,
 * `bash -c` strings, wrappers (sudo, env, xargs, nohup…), redirects and substitutions. The class of
 * a compound is its most severe part.
 */
export function classifyCommand(command: string, opts: ClassifyOptions): CommandClassification {
  const walk = new CommandWalk(opts);
  walk.source(command, walk.initialScope(opts.cwd), 0);
  return walk.result();
}

/** Classifies an argv that runs without a shell (run_script's interpreter command line). */
export function classifyArgv(argv: readonly string[], opts: ClassifyOptions): CommandClassification {
  const walk = new CommandWalk(opts);
  const scope = walk.initialScope(opts.cwd);
  const forms: string[][] = [];
  walk.commands.push({ words: [...argv], forms });
  walk.argv(argv.map(staticArg), scope, scope, 0, NO_STDIN, forms);
  return walk.result();
}

export interface RunScriptCall {
  interpreter: string;
  script: string;
  args?: readonly string[];
  interpreterArgs?: readonly string[];
  cwd?: string;
}

/** run_script runs a script: execute, never recognised, plus whatever its interpreter flags add. */
export function classifyRunScript(call: RunScriptCall, opts: ClassifyOptions): CommandClassification {
  const argv = [call.interpreter, ...(call.interpreterArgs ?? []), call.script, ...(call.args ?? [])];
  const cwd =
    call.cwd === undefined ? opts.cwd : posix.resolve(posix.resolve(opts.workspaceRoot, opts.cwd ?? "."), call.cwd);
  const result = classifyArgv(argv, { ...opts, ...(cwd === undefined ? {} : { cwd }) });
  if (
    result.actionClass === "read" ||
    result.actionClass === "write" ||
    (result.actionClass === "execute" && result.recognised)
  ) {
    result.actionClass = "execute";
  }
  result.recognised = false;
  result.reasons.push(`run_script runs ${clip(call.script)} with ${call.interpreter} [execute]`);
  return result;
}
