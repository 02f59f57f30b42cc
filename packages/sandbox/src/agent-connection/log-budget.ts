export interface LogBudgetOptions {
  /** Lines passed on per interval; the rest are counted and summed up in one line. */
  maxLines: number;
  intervalMs: number;
  /** A longer line is cut here (after escaping), saying how much was cut. */
  maxLineChars: number;
  now?: () => number;
}

export const DEFAULT_LOG_BUDGET: LogBudgetOptions = { maxLines: 20, intervalMs: 10_000, maxLineChars: 300 };

/**
 * Bounds what an untrusted source (a container) can make the runner log (issue 14 item 13): at most `maxLines`
 * lines per interval, then a single "suppressed K lines" line when the interval ends; each line has its control
 * characters escaped (no terminal escapes, no forged log lines through \n or \r) and is cut to `maxLineChars`.
 */
export class LogBudget {
  private readonly now: () => number;
  private windowStart: number;
  private passed = 0;
  private suppressed = 0;
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly sink: (line: string) => void,
    private readonly options: LogBudgetOptions = DEFAULT_LOG_BUDGET,
  ) {
    this.now = options.now ?? Date.now;
    this.windowStart = this.now();
  }

  write(line: string): void {
    this.roll();
    if (this.passed < this.options.maxLines) {
      this.passed++;
      this.sink(boundLine(line, this.options.maxLineChars));
      return;
    }
    this.suppressed++;
    // The summary is due even if nothing else ever arrives.
    this.timer ??= setTimeout(
      () => {
        this.timer = null;
        this.roll();
      },
      Math.max(0, this.windowStart + this.options.intervalMs - this.now()),
    ).unref();
  }

  /** Says what was suppressed so far (at close) and stops the timer. */
  flush(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.summarize();
  }

  private roll(): void {
    const now = this.now();
    if (now - this.windowStart < this.options.intervalMs) return;
    this.summarize();
    this.windowStart = now;
    this.passed = 0;
  }

  private summarize(): void {
    if (this.suppressed === 0) return;
    const seconds = Math.round(this.options.intervalMs / 1000);
    this.sink(`suppressed ${this.suppressed} lines (limit ${this.options.maxLines} lines per ${seconds} s)`);
    this.suppressed = 0;
  }
}

/** C0 and C1 controls, DEL, and the bidirectional overrides that can make a log line read differently. */
// eslint-disable-next-line no-control-regex
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

/** The line with unsafe characters escaped as \xNN / \uNNNN, cut to `maxChars`. */
export function boundLine(line: string, maxChars: number): string {
  const escaped = line.replace(UNSAFE, (c) => {
    const code = c.charCodeAt(0);
    return code <= 0xff ? `\\x${code.toString(16).padStart(2, "0")}` : `\\u${code.toString(16).padStart(4, "0")}`;
  });
  if (escaped.length <= maxChars) return escaped;
  return `${escaped.slice(0, maxChars)}… (${escaped.length - maxChars} more chars)`;
}
