import type { Arg } from "./command-context";

/** Reading a command's arguments the way the programs themselves do (options, operands, `--`). */

export const isOption = (a: Arg | undefined): boolean =>
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

export const EMPTY: ReadonlySet<string> = new Set();
export const set = (...items: string[]): ReadonlySet<string> => new Set(items);

/** Operands (non-option words) after `start`, honouring `--`. */
export function operands(args: readonly Arg[], withValue: ReadonlySet<string> = EMPTY): Arg[] {
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
export function hasFlag(args: readonly Arg[], long: readonly string[], short = ""): boolean {
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
export function optionValues(args: readonly Arg[], names: readonly string[]): Array<string | undefined> {
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

export const shown = (a: Arg | undefined): string => (a === undefined ? "" : (a.value ?? a.text));

/** `/dev/fd/N`, which is what `<(…)` becomes: a pipe from another command, not a file. */
export const isPipePath = (a: Arg | undefined): boolean => a?.value !== undefined && /^\/dev\/fd\/\d+$/.test(a.value);
