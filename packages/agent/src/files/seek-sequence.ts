/** Where to look for a run of lines, besides scanning forward from `from`. */
export interface SeekOptions {
  from: number;
  /** `*** End of File`: try the very end first. */
  eof?: boolean;
  /** A unified diff's 0-based start line: try it before scanning. */
  hint?: number;
}

const DASHES = /[\u2010-\u2015\u2212]/g;
const SINGLE_QUOTES = /[\u2018-\u201B]/g;
const DOUBLE_QUOTES = /[\u201C-\u201F]/g;
const ODD_SPACES = /[\u00A0\u2002-\u200A\u202F\u205F\u3000]/g;

/** Typographic dashes, quotes and spaces as their ASCII look-alikes, so an ASCII hunk finds a typeset line. */
export function normalisePunctuation(line: string): string {
  return line
    .trim()
    .replace(DASHES, "-")
    .replace(SINGLE_QUOTES, "'")
    .replace(DOUBLE_QUOTES, '"')
    .replace(ODD_SPACES, " ");
}

/**
 * Codex's order of leniency (codex-rs/apply-patch/src/seek_sequence.rs): exact, then ignoring trailing
 * whitespace, then ignoring surrounding whitespace, then with Unicode punctuation normalised. A looser
 * pass runs only when no position matched under every stricter one.
 */
const exact = (line: string) => line;
const PASSES: readonly ((line: string) => string)[] = [
  exact,
  (line) => line.trimEnd(),
  (line) => line.trim(),
  normalisePunctuation,
];

function matchesAt(lines: readonly string[], pattern: readonly string[], at: number): boolean {
  if (at < 0 || at + pattern.length > lines.length) return false;
  return pattern.every((p, k) => lines[at + k] === p);
}

/** The first index at or after `from` where `pattern` occurs in `lines`, or -1. */
export function seekSequence(lines: readonly string[], pattern: readonly string[], options: SeekOptions): number {
  const { from, eof = false, hint } = options;
  if (pattern.length === 0) return from;
  const end = lines.length - pattern.length;
  for (const key of PASSES) {
    // Each line is keyed once per pass (not once per position tried): a miss in a big file stays linear.
    const keyed = key === exact ? lines : lines.map(key);
    const wanted = key === exact ? pattern : pattern.map(key);
    if (eof && end >= from && matchesAt(keyed, wanted, end)) return end;
    if (hint !== undefined && hint >= from && matchesAt(keyed, wanted, hint)) return hint;
    for (let at = from; at <= end; at++) if (matchesAt(keyed, wanted, at)) return at;
  }
  return -1;
}
