/**
 * When each line of a run's log was written, for the log view's Timestamps toggle. The runner records the
 * arrival of every output chunk by byte offset (GET /api/runs/:id/logs?timestamps=1); a line's time is that
 * of the chunk its first byte came in, as GitHub Actions stamps a line when it starts.
 */
import type { LogChunk } from "./log-lines";

/** `at` (epoch ms): when the bytes from `offset` on arrived; offsets are UTF-8 bytes of the chunks' text joined. */
export interface LogTime {
  offset: number;
  at: number;
}

/** UTF-8 length of a UTF-16 code unit run, without encoding it. */
function utf8Bytes(code: number, next: number): { bytes: number; units: number } {
  if (code < 0x80) return { bytes: 1, units: 1 };
  if (code < 0x800) return { bytes: 2, units: 1 };
  if (code >= 0xd800 && code <= 0xdbff && next >= 0xdc00 && next <= 0xdfff) return { bytes: 4, units: 2 };
  return { bytes: 3, units: 1 };
}

/**
 * The time of each raw line (index `n - 1` for line `n`, the numbering of the log view and of the raw
 * download): each line starts after a `\n`, so one walk over the text finds every line's first byte.
 * Undefined for a line that starts before the first known time (a run from before times were recorded).
 */
export function lineTimes(chunks: readonly LogChunk[], times: readonly LogTime[]): (number | undefined)[] {
  const out: (number | undefined)[] = [];
  if (times.length === 0) return out;
  let byte = 0;
  let t = -1;
  const timeAt = (offset: number) => {
    while (t + 1 < times.length && times[t + 1]!.offset <= offset) t++;
    return t >= 0 ? times[t]!.at : undefined;
  };
  out.push(timeAt(0));
  for (const chunk of chunks) {
    const text = chunk.text;
    for (let i = 0; i < text.length; ) {
      const code = text.charCodeAt(i);
      const { bytes, units } = utf8Bytes(code, text.charCodeAt(i + 1));
      byte += bytes;
      i += units;
      if (code === 10) out.push(timeAt(byte));
    }
  }
  return out;
}

const pad = (n: number, width = 2) => String(n).padStart(width, "0");

/** `14:03:07.125`, local time, as the log view prefixes a line. */
export function formatLogTime(ms: number): string {
  const d = new Date(ms);
  return `${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}.${pad(d.getMilliseconds(), 3)}`;
}

/** `+1.250 s` after the run started (the hover text), or `+2 min 5.000 s`. */
export function formatSinceStart(ms: number, startedAt: number): string {
  const since = Math.max(0, ms - startedAt) / 1000;
  const minutes = Math.floor(since / 60);
  const seconds = (since - minutes * 60).toFixed(3);
  return minutes > 0 ? `+${minutes} min ${seconds} s` : `+${seconds} s`;
}
