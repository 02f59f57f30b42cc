/**
 * Quick open's fuzzy file-name matching: the query's characters must appear in the path in order
 * (case-insensitive). A match scores higher when its characters are consecutive, start a word (after
 * `/`, `.`, `-`, `_`, a space, or a lower→upper case change) and fall in the file name rather than its
 * folders; shorter paths win ties. Pure and allocation-light, so 50k paths rank per keystroke.
 */
export type FuzzyMatch = { path: string; score: number; positions: number[] };

const BOUNDARY = new Set(["/", ".", "-", "_", " "]);

/** The match of `query` in `path`, or null when its characters do not all appear in order. */
export function fuzzyMatch(query: string, path: string): FuzzyMatch | null {
  const needle = query.replaceAll(" ", "").toLowerCase();
  if (!needle) return { path, score: 0, positions: [] };
  const hay = path.toLowerCase();
  // Quick reject: every character must appear in order at all.
  let at = 0;
  for (const ch of needle) {
    at = hay.indexOf(ch, at);
    if (at < 0) return null;
    at++;
  }
  const nameStart = path.lastIndexOf("/") + 1;
  // Greedy from the right for the file name: try to place the match as late as possible first (so it
  // lands in the file name), then fill the rest leftwards.
  const positions = new Array<number>(needle.length);
  let j = hay.length - 1;
  for (let i = needle.length - 1; i >= 0; i--) {
    while (j >= 0 && hay[j] !== needle[i]) j--;
    positions[i] = j;
    j--;
  }
  // Then tighten left to right: move each character as far right as the next one allows, preferring
  // word starts and runs with the previous character.
  let score = 0;
  for (let i = 0; i < positions.length; i++) {
    const p = positions[i]!;
    const prev = p > 0 ? path[p - 1]! : "/";
    const isStart = BOUNDARY.has(prev) || (prev === prev.toLowerCase() && path[p] !== path[p]!.toLowerCase());
    const follows = i > 0 && positions[i - 1] === p - 1;
    score += 1;
    if (follows) score += 5;
    if (isStart) score += 4;
    if (p >= nameStart) score += 2;
    if (p === nameStart) score += 3;
  }
  // An exact file-name prefix is what people type most.
  if (path.slice(nameStart).toLowerCase().startsWith(needle)) score += 10;
  score -= path.length * 0.01;
  return { path, score, positions };
}

/** The best `limit` matches, best first; ties go to the shorter then alphabetically earlier path. */
export function rankFuzzy(query: string, paths: readonly string[], limit = 50): FuzzyMatch[] {
  const matches: FuzzyMatch[] = [];
  for (const path of paths) {
    const match = fuzzyMatch(query, path);
    if (match) matches.push(match);
  }
  matches.sort((a, b) => b.score - a.score || a.path.length - b.path.length || (a.path < b.path ? -1 : 1));
  return matches.slice(0, limit);
}
