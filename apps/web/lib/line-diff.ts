/**
 * A line diff for approval cards (what a parked write_file would change): Myers' O(ND) shortest edit script,
 * then hunks with a few lines of context and the unchanged stretches between them folded, as `git diff`
 * shows them. Pure, so it is unit-tested here.
 */

/** `header`: a patch's own file or hunk header line, shown as it is. */
export type DiffLine = { kind: "same" | "add" | "del"; text: string; oldNo?: number; newNo?: number; header?: boolean };
export type DiffRow = DiffLine | { kind: "fold"; count: number };

/** Past this many differing lines the edit script is not searched further (a rewrite, not an edit). */
const MAX_EDITS = 4000;

const splitLines = (text: string): string[] => {
  if (text === "") return [];
  const lines = text.split("\n");
  if (lines[lines.length - 1] === "") lines.pop();
  return lines;
};

/** Every line of both texts in order, each kept, added or removed; null when they differ in more than MAX_EDITS lines. */
export function diffLines(before: string, after: string): DiffLine[] | null {
  const a = splitLines(before);
  const b = splitLines(after);
  const n = a.length;
  const m = b.length;
  const max = Math.min(n + m, MAX_EDITS);
  const offset = max + 1;
  let v = new Int32Array(2 * max + 3);
  const trace: Int32Array[] = [];
  let found = -1;
  for (let d = 0; d <= max && found < 0; d++) {
    trace.push(v.slice());
    const next = v.slice();
    for (let k = -d; k <= d; k += 2) {
      let x = k === -d || (k !== d && v[offset + k - 1]! < v[offset + k + 1]!) ? v[offset + k + 1]! : v[offset + k - 1]! + 1;
      let y = x - k;
      while (x < n && y < m && a[x] === b[y]) {
        x++;
        y++;
      }
      next[offset + k] = x;
      if (x >= n && y >= m) {
        found = d;
        break;
      }
    }
    v = next;
  }
  if (found < 0) return null;
  // Walk the trace back from the end, collecting the path's moves.
  const out: DiffLine[] = [];
  let x = n;
  let y = m;
  for (let d = found; d > 0; d--) {
    const prev = trace[d]!;
    const k = x - y;
    const down = k === -d || (k !== d && prev[offset + k - 1]! < prev[offset + k + 1]!);
    const pk = down ? k + 1 : k - 1;
    const px = prev[offset + pk]!;
    const py = px - pk;
    while (x > px && y > py) out.push({ kind: "same", text: a[--x]!, oldNo: x + 1, newNo: y-- });
    if (down) out.push({ kind: "add", text: b[--y]!, newNo: y + 1 });
    else out.push({ kind: "del", text: a[--x]!, oldNo: x + 1 });
  }
  while (x > 0 && y > 0) out.push({ kind: "same", text: a[--x]!, oldNo: x + 1, newNo: y-- });
  return out.reverse();
}

/** The lines with unchanged stretches longer than twice `context` folded to their count. */
export function foldUnchanged(lines: readonly DiffLine[], context = 3): DiffRow[] {
  const rows: DiffRow[] = [];
  let i = 0;
  while (i < lines.length) {
    if (lines[i]!.kind !== "same") {
      rows.push(lines[i++]!);
      continue;
    }
    let j = i;
    while (j < lines.length && lines[j]!.kind === "same") j++;
    const keepBefore = i === 0 ? 0 : context;
    const keepAfter = j === lines.length ? 0 : context;
    if (j - i > keepBefore + keepAfter + 1) {
      rows.push(...lines.slice(i, i + keepBefore), { kind: "fold", count: j - i - keepBefore - keepAfter }, ...lines.slice(j - keepAfter, j));
    } else rows.push(...lines.slice(i, j));
    i = j;
  }
  return rows;
}
