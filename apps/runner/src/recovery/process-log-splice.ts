type Stream = "stdout" | "stderr";

/**
 * Where a background process's log in its agent stands after some of its output: the agent keeps one file with
 * `[stdout] ` / `[stderr] ` at each line start, in arrival order, and ends a partial line with a newline when the
 * other stream cuts in (packages/agent ProcessManager). The runner's stored logs are the same output split by
 * stream, in the same order, so replaying that format over them gives the offset in the agent's log where what
 * the runner stored ends.
 */
export interface ProcessLogPosition {
  /** Bytes of the agent's log. */
  bytes: number;
  atLineStart: boolean;
  lastStream: Stream | null;
}

const PREFIX_BYTES = "[stdout] ".length;
const PREFIXES: Record<Stream, Buffer> = { stdout: Buffer.from("[stdout] "), stderr: Buffer.from("[stderr] ") };

export const logStart = (): ProcessLogPosition => ({ bytes: 0, atLineStart: true, lastStream: null });

/** The position after `data` of `stream` (as the agent would have written it); chunk boundaries do not matter. */
export function advance(at: ProcessLogPosition, stream: Stream, data: Buffer): ProcessLogPosition {
  if (data.length === 0) return at;
  let { bytes, atLineStart } = at;
  if (!atLineStart && at.lastStream !== stream) {
    bytes += 1;
    atLineStart = true;
  }
  let from = 0;
  while (from < data.length) {
    if (atLineStart) bytes += PREFIX_BYTES;
    const newline = data.indexOf(10, from);
    const to = newline === -1 ? data.length : newline + 1;
    bytes += to - from;
    atLineStart = newline !== -1;
    from = to;
  }
  return { bytes, atLineStart, lastStream: stream };
}

export type UnseenOutput = { ok: true; pieces: { stream: Stream; data: Buffer }[] } | { ok: false; why: string };

/**
 * Splits the agent's log from `at` (what no runner stored) back into its streams. Where the stream changes after
 * a line that ended in this part, that line's newline may be the process's or one the agent added: the streams
 * cannot be told apart exactly there, so the output is refused rather than guessed.
 */
export function splitUnseen(at: ProcessLogPosition, log: Buffer): UnseenOutput {
  const pieces: { stream: Stream; parts: Buffer[] }[] = [];
  let stream = at.lastStream;
  let atLineStart = at.atLineStart;
  let i = 0;
  while (i < log.length) {
    if (atLineStart) {
      const head = log.subarray(i, i + PREFIX_BYTES);
      const next = head.equals(PREFIXES.stdout) ? "stdout" : head.equals(PREFIXES.stderr) ? "stderr" : null;
      if (!next) return { ok: false, why: `the agent's log has no stream prefix at byte ${at.bytes + i}` };
      if (i > 0 && next !== stream) {
        return { ok: false, why: `stdout and stderr interleave at byte ${at.bytes + i} of the agent's log, where a line's end cannot be placed exactly` };
      }
      stream = next;
      i += PREFIX_BYTES;
      atLineStart = false;
      continue;
    }
    if (!stream) return { ok: false, why: "the agent's log continues a line of no stream" };
    const newline = log.indexOf(10, i);
    const to = newline === -1 ? log.length : newline + 1;
    const last = pieces.at(-1);
    if (last?.stream === stream) last.parts.push(log.subarray(i, to));
    else pieces.push({ stream, parts: [log.subarray(i, to)] });
    atLineStart = newline !== -1;
    i = to;
  }
  return { ok: true, pieces: pieces.map(({ stream, parts }) => ({ stream, data: Buffer.concat(parts) })) };
}
