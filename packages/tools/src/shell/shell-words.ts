import type { Assignment, Word, WordPart } from "unbash";
import type { Arg } from "./command-context";

const DYNAMIC_PARTS = new Set<WordPart["type"]>([
  "SimpleExpansion",
  "ParameterExpansion",
  "CommandExpansion",
  "ArithmeticExpansion",
  "ProcessSubstitution",
]);

export function isStaticParts(parts: readonly { type: string; parts?: readonly unknown[] }[] | undefined): boolean {
  if (parts === undefined) return true;
  for (const part of parts) {
    if (DYNAMIC_PARTS.has(part.type as WordPart["type"])) return false;
    if ((part.type === "DoubleQuoted" || part.type === "LocaleString") && !isStaticParts(part.parts as never))
      return false;
  }
  return true;
}

/** What bash passes for a whole-word `<(…)` / `>(…)`: a pipe's path, never a workspace file. */
const PROCESS_SUBSTITUTION_PATH = "/dev/fd/63";

export function wordArg(word: Word): Arg {
  if (word.parts?.length === 1 && word.parts[0]!.type === "ProcessSubstitution") {
    return { value: PROCESS_SUBSTITUTION_PATH, text: word.text };
  }
  return { value: isStaticParts(word.parts) ? word.value : undefined, text: word.text };
}

export function assignmentArg(a: Assignment): Arg {
  const op = a.append ? "+=" : "=";
  if (a.value.type !== "Word" || !isStaticParts(a.value.parts)) return { value: undefined, text: a.text };
  return { value: `${a.name}${op}${a.value.value}`, text: a.text };
}

export const trimSlash = (p: string): string => (p.length > 1 && p.endsWith("/") ? p.slice(0, -1) : p);
export const shownValue = (a: Arg): string => a.value ?? a.text;
export const clip = (text: string): string => (text.length > 80 ? `${text.slice(0, 77)}...` : text);
