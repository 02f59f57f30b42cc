/**
 * A run's log as the log view shows it: the text (stdout and stderr in the order written) through the IDE's
 * AnsiScreen (colours, `\r` redraws collapsed to their last frame), cut into numbered lines, with GitHub
 * Actions' `::group::name` / `::endgroup::` lines turned into foldable sections. Pure, so a 100k-line log is
 * unit-tested here and the view only renders the rows in its window.
 */
import { AnsiScreen, type AnsiLine } from "./ansi";

export type LogStreamName = "stdout" | "stderr";
export interface LogChunk {
  stream: LogStreamName;
  text: string;
}

export interface LogLine {
  /** 1-based, counting every line of the raw log (so `#L120` is line 120 of the download too). */
  number: number;
  spans: AnsiLine;
  /** The line without its styling, for search. */
  text: string;
  /** Some of it was written to stderr. */
  stderr: boolean;
  /** Index in `groups` of the section this line belongs to (its header included). */
  group?: number;
  /** This line is a group's `::group::` header. */
  header?: boolean;
}

export interface LogGroup {
  name: string;
  /** Index in `lines` of the header, and one past the group's last line. */
  start: number;
  end: number;
}

export interface ParsedLog {
  lines: LogLine[];
  groups: LogGroup[];
}

const GROUP = /^::group::(.*)$/;
const END_GROUP = /^::endgroup::\s*$/;

/** Turns the log's chunks (in the order written) into lines and groups. `::endgroup::` lines are not shown. */
export function parseLog(chunks: readonly LogChunk[]): ParsedLog {
  const screen = new AnsiScreen(Number.POSITIVE_INFINITY);
  for (const chunk of chunks) screen.write(chunk.text, chunk.stream);
  const raw = screen.lines();
  // A log that ends with a newline has an empty current line after it: not a line of the log.
  if (raw.length > 0 && raw[raw.length - 1]!.length === 0) raw.pop();

  const lines: LogLine[] = [];
  const groups: LogGroup[] = [];
  let open: LogGroup | null = null;
  const close = () => {
    if (open) open.end = lines.length;
    open = null;
  };
  raw.forEach((spans, index) => {
    const text = spans.map((span) => span.text).join("");
    const number = index + 1;
    const stderr = spans.some((span) => span.stream === "stderr");
    if (END_GROUP.test(text)) {
      close();
      return;
    }
    const header = GROUP.exec(text);
    if (header) {
      // Groups do not nest in GitHub Actions: a new header ends the open group.
      close();
      open = { name: header[1]!.trim() || "group", start: lines.length, end: lines.length + 1 };
      groups.push(open);
      lines.push({ number, spans, text, stderr, group: groups.length - 1, header: true });
      return;
    }
    lines.push({ number, spans, text, stderr, ...(open ? { group: groups.length - 1 } : {}) });
  });
  close();
  return { lines, groups };
}

/** Indices into `log.lines` of the rows shown: a collapsed group shows its header only. */
export function visibleRows(log: ParsedLog, collapsed: ReadonlySet<number>): number[] {
  const rows: number[] = [];
  for (let i = 0; i < log.lines.length; i++) {
    const line = log.lines[i]!;
    if (line.group !== undefined && !line.header && collapsed.has(line.group)) {
      i = log.groups[line.group]!.end - 1;
      continue;
    }
    rows.push(i);
  }
  return rows;
}

/** Indices into `log.lines` of the lines that contain `query` (case-insensitive); none for an empty query. */
export function findMatches(log: ParsedLog, query: string): number[] {
  if (!query) return [];
  const needle = query.toLowerCase();
  const found: number[] = [];
  log.lines.forEach((line, index) => {
    if (line.text.toLowerCase().includes(needle)) found.push(index);
  });
  return found;
}

/** Index into `log.lines` of raw line `number`, or of the first shown line after it (an `::endgroup::`). */
export function lineIndexOf(log: ParsedLog, number: number): number {
  let lo = 0;
  let hi = log.lines.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (log.lines[mid]!.number < number) lo = mid + 1;
    else hi = mid;
  }
  return lo < log.lines.length ? lo : -1;
}

/** `#L120` → 120; anything else → null. */
export function lineFromHash(hash: string): number | null {
  const match = /^#L(\d+)$/.exec(hash);
  if (!match) return null;
  const n = Number(match[1]);
  return n >= 1 ? n : null;
}

/**
 * Splits the runner's combined log (stdout and stderr in arrival order, with no stream marks) back into
 * chunks by walking it against the two stream logs: the combined log is an interleaving of them, so each
 * character comes from whichever stream continues with it. Where both would, the one that matches longer
 * wins. If the three do not fit together (a log cut at a different place), the rest is kept as stdout
 * rather than lost.
 */
export function splitCombined(combined: string, stdout: string, stderr: string): LogChunk[] {
  const chunks: LogChunk[] = [];
  const push = (stream: LogStreamName, text: string) => {
    const last = chunks[chunks.length - 1];
    if (last && last.stream === stream) last.text += text;
    else chunks.push({ stream, text });
  };
  let k = 0;
  let o = 0;
  let e = 0;
  while (k < combined.length) {
    const outFits = stdout[o] === combined[k];
    const errFits = stderr[e] === combined[k];
    let take: LogStreamName | null = outFits && !errFits ? "stdout" : errFits && !outFits ? "stderr" : null;
    if (!outFits && !errFits) {
      push("stdout", combined.slice(k));
      break;
    }
    if (take === null) {
      let d = 1;
      while (k + d < combined.length && stdout[o + d] === combined[k + d] && stderr[e + d] === combined[k + d]) d++;
      take = stderr[e + d] === combined[k + d] && stdout[o + d] !== combined[k + d] ? "stderr" : "stdout";
    }
    // Take the whole run this stream matches for, not one character at a time.
    const start = k;
    if (take === "stdout") {
      while (k < combined.length && stdout[o] === combined[k] && (k === start || stderr[e] !== combined[k])) {
        k++;
        o++;
      }
    } else {
      while (k < combined.length && stderr[e] === combined[k] && (k === start || stdout[o] !== combined[k])) {
        k++;
        e++;
      }
    }
    push(take, combined.slice(start, k));
  }
  return chunks;
}
