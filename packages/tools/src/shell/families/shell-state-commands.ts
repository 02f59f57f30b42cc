import type { CommandFamily, CommandHandler } from "../command-family";
import { operandIndex, set } from "../command-args";

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

/** Builtins that change the shell itself: its working directory and the variables later commands see. */
export const SHELL_STATE_COMMANDS: CommandFamily = {
  family: "shell state",
  rules: [
    { names: ["cd", "pushd", "popd"], handler: cd },
    { names: ["export", "declare", "typeset", "local", "readonly"], handler: declare },
  ],
};
