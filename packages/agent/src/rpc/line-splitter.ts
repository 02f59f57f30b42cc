/** Longest request line accepted (a write_file of 8 MiB as base64 plus JSON framing fits easily). */
export const MAX_LINE_BYTES = 64 * 1024 * 1024;

/**
 * Splits a byte stream into newline-terminated lines without decoding, so each line's UTF-8 can be
 * checked on its own. A line over the limit is dropped whole and reported once.
 */
export class LineSplitter {
  private pending: Buffer[] = [];
  private pendingLength = 0;
  private discarding = false;

  constructor(
    private readonly onLine: (line: Buffer) => void,
    private readonly onOversize: () => void,
    private readonly maxBytes = MAX_LINE_BYTES,
  ) {}

  push(chunk: Buffer): void {
    let from = 0;
    while (from < chunk.length) {
      const newline = chunk.indexOf(10, from);
      const end = newline === -1 ? chunk.length : newline;
      if (!this.discarding) {
        this.pending.push(chunk.subarray(from, end));
        this.pendingLength += end - from;
        if (this.pendingLength > this.maxBytes) {
          this.discarding = true;
          this.pending = [];
          this.pendingLength = 0;
          this.onOversize();
        }
      }
      if (newline === -1) return;
      if (!this.discarding) this.onLine(Buffer.concat(this.pending));
      this.pending = [];
      this.pendingLength = 0;
      this.discarding = false;
      from = newline + 1;
    }
  }

  /** End of input: a last line without a newline still counts. */
  end(): void {
    if (!this.discarding && this.pendingLength > 0) this.onLine(Buffer.concat(this.pending));
    this.pending = [];
    this.pendingLength = 0;
  }
}
