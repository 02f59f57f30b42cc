import type { CommandFamily, CommandHandler } from "../command-family";
import { recognised } from "../command-family";
import { operands, optionValues, hasFlag, set } from "../command-args";

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

/** Read-ish programs, and text tools whose scripts or options can run commands or write files. */
export const TEXT_COMMANDS: CommandFamily = {
  family: "read and text tools",
  rules: [
    { names: READ_COMMANDS, handler: recognised },
    { names: ["sort"], handler: sort },
    { names: ["uniq"], handler: uniq },
    { names: ["awk", "gawk", "mawk", "nawk"], handler: awk },
    { names: ["sed"], handler: sed },
  ],
};
