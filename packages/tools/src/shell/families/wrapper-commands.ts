import type { CommandFamily, CommandHandler } from "../command-family";
import { EMPTY, hasFlag, operandIndex, optionValues, set } from "../command-args";

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

/** Programs that run another command: what they run is classified as a command of its own. */
export const WRAPPER_COMMANDS: CommandFamily = {
  family: "wrappers",
  rules: [
    {
      names: ["sudo"],
      handler: asRoot(
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
    },
    { names: ["doas"], handler: asRoot(set("-u", "-C")) },
    { names: ["pkexec"], handler: asRoot(set("--user")) },
    { names: ["su"], handler: su },
    { names: ["env"], handler: env },
    { names: ["nohup", "setsid", "unbuffer"], handler: wrapper() },
    { names: ["time"], handler: timeCommand },
    { names: ["nice"], handler: wrapper(set("-n", "--adjustment")) },
    { names: ["ionice"], handler: wrapper(set("-c", "-n", "-p", "-P", "-u", "--class", "--classdata")) },
    { names: ["stdbuf"], handler: wrapper(set("-i", "-o", "-e", "--input", "--output", "--error")) },
    { names: ["timeout"], handler: timeout },
    { names: ["exec"], handler: exec },
    { names: ["command"], handler: command },
    { names: ["builtin"], handler: wrapper() },
    { names: ["xargs"], handler: xargs },
    { names: ["watch"], handler: watch },
    { names: ["chroot"], handler: chroot },
    { names: ["busybox"], handler: busybox },
  ],
};
