/**
 * A small terminal screen for the output pane: text with ANSI SGR colours (16, 256 and 24-bit), bold,
 * dim, italic, underline and inverse, and the redraws progress bars use (`\r`, `\b`, erase in line `ESC[K`,
 * cursor left/right). Other escape sequences are dropped, never shown as garbage. Pure, so it is
 * unit-tested without a browser; the pane renders its spans.
 */

export interface AnsiStyle {
  fg?: string;
  bg?: string;
  bold?: boolean;
  dim?: boolean;
  italic?: boolean;
  underline?: boolean;
  inverse?: boolean;
}

export interface AnsiSpan {
  text: string;
  style: AnsiStyle;
  /** Which stream wrote it: stderr is shown apart when it has no colour of its own. */
  stream: "stdout" | "stderr";
}

export type AnsiLine = AnsiSpan[];

/** xterm's default 16 colours (close to what a terminal shows). */
const BASE16 = [
  "#000000", "#cd3131", "#0dbc79", "#e5e510", "#2472c8", "#bc3fbc", "#11a8cd", "#e5e5e5",
  "#666666", "#f14c4c", "#23d18b", "#f5f543", "#3b8eea", "#d670d6", "#29b8db", "#ffffff",
];

function color256(n: number): string | undefined {
  if (n < 0 || n > 255) return undefined;
  if (n < 16) return BASE16[n];
  if (n >= 232) {
    const v = 8 + (n - 232) * 10;
    return `rgb(${v},${v},${v})`;
  }
  const i = n - 16;
  const level = (x: number) => (x === 0 ? 0 : 55 + x * 40);
  return `rgb(${level(Math.floor(i / 36))},${level(Math.floor(i / 6) % 6)},${level(i % 6)})`;
}

interface Cell {
  ch: string;
  style: AnsiStyle;
  stream: "stdout" | "stderr";
}

const sameStyle = (a: AnsiStyle, b: AnsiStyle) =>
  a.fg === b.fg && a.bg === b.bg && !!a.bold === !!b.bold && !!a.dim === !!b.dim && !!a.italic === !!b.italic && !!a.underline === !!b.underline && !!a.inverse === !!b.inverse;

/**
 * Feed it chunks in the order they were written; read `lines()`. Keeps at most `maxLines` lines (the
 * oldest go first), so a long run's output costs bounded memory.
 */
export class AnsiScreen {
  private done: AnsiLine[] = [];
  private line: Cell[] = [];
  private col = 0;
  private style: AnsiStyle = {};
  /** An escape sequence cut at a chunk's end, completed by the next chunk. */
  private pending = "";

  constructor(private readonly maxLines = 5000) {}

  write(text: string, stream: "stdout" | "stderr" = "stdout"): void {
    const input = this.pending + text;
    this.pending = "";
    let i = 0;
    while (i < input.length) {
      const ch = input[i]!;
      if (ch === "\u001b") {
        const consumed = this.escape(input, i);
        if (consumed === 0) {
          // Incomplete: keep it for the next chunk (bounded, so a stray ESC cannot hold everything back).
          const rest = input.slice(i);
          if (rest.length < 64) this.pending = rest;
          return;
        }
        i += consumed;
        continue;
      }
      if (ch === "\r") {
        // CRLF is a newline; a lone CR returns to the line's start, the next text overwrites it.
        if (input[i + 1] === "\n") {
          i++;
          continue;
        }
        if (i + 1 === input.length) {
          this.pending = "\r";
          return;
        }
        this.col = 0;
      } else if (ch === "\n") {
        this.newline();
      } else if (ch === "\b") {
        this.col = Math.max(0, this.col - 1);
      } else if (ch === "\t") {
        const next = (Math.floor(this.col / 8) + 1) * 8;
        while (this.col < next) this.put(" ", stream);
      } else if (ch >= " " && ch !== "\u007f") {
        this.put(ch, stream);
      }
      i++;
    }
  }

  /** Finished lines and the current one, as runs of equally styled text. */
  lines(): AnsiLine[] {
    return [...this.done, spansOf(this.line)];
  }

  private put(ch: string, stream: "stdout" | "stderr"): void {
    const cell = { ch, style: this.style, stream };
    while (this.line.length < this.col) this.line.push({ ch: " ", style: {}, stream });
    if (this.col < this.line.length) this.line[this.col] = cell;
    else this.line.push(cell);
    this.col++;
  }

  private newline(): void {
    this.done.push(spansOf(this.line));
    if (this.done.length > this.maxLines) this.done.splice(0, this.done.length - this.maxLines);
    this.line = [];
    this.col = 0;
  }

  /** Length of the escape sequence at `i` (0 when the input ends inside it). */
  private escape(input: string, i: number): number {
    const next = input[i + 1];
    if (next === undefined) return 0;
    if (next === "[") {
      let j = i + 2;
      while (j < input.length && /[0-9;?:<=>]/.test(input[j]!)) j++;
      if (j >= input.length) return 0;
      this.csi(input.slice(i + 2, j), input[j]!);
      return j - i + 1;
    }
    if (next === "]") {
      // OSC (window title, hyperlinks): up to BEL or ESC \.
      for (let j = i + 2; j < input.length; j++) {
        if (input[j] === "\u0007") return j - i + 1;
        if (input[j] === "\u001b" && input[j + 1] === "\\") return j - i + 2;
      }
      return input.length - i > 4096 ? input.length - i : 0;
    }
    return 2;
  }

  private csi(params: string, final: string): void {
    const nums = params.split(/[;:]/).map((p) => (p === "" ? NaN : Number(p)));
    const n = Number.isNaN(nums[0] ?? NaN) ? 1 : nums[0]!;
    if (final === "m") this.sgr(params === "" ? [0] : nums.map((x) => (Number.isNaN(x) ? 0 : x)));
    else if (final === "K") {
      const mode = Number.isNaN(nums[0] ?? NaN) ? 0 : nums[0];
      if (mode === 0) this.line.length = Math.min(this.line.length, this.col);
      else if (mode === 1) for (let k = 0; k < Math.min(this.col, this.line.length); k++) this.line[k] = { ch: " ", style: {}, stream: this.line[k]!.stream };
      else this.line = [];
    } else if (final === "D") this.col = Math.max(0, this.col - n);
    else if (final === "C") this.col += n;
    else if (final === "G") this.col = Math.max(0, n - 1);
  }

  private sgr(codes: number[]): void {
    let style = { ...this.style };
    for (let k = 0; k < codes.length; k++) {
      const c = codes[k]!;
      if (c === 0) style = {};
      else if (c === 1) style.bold = true;
      else if (c === 2) style.dim = true;
      else if (c === 3) style.italic = true;
      else if (c === 4) style.underline = true;
      else if (c === 7) style.inverse = true;
      else if (c === 22) style.bold = style.dim = false;
      else if (c === 23) style.italic = false;
      else if (c === 24) style.underline = false;
      else if (c === 27) style.inverse = false;
      else if (c >= 30 && c <= 37) style.fg = BASE16[c - 30];
      else if (c >= 90 && c <= 97) style.fg = BASE16[c - 90 + 8];
      else if (c >= 40 && c <= 47) style.bg = BASE16[c - 40];
      else if (c >= 100 && c <= 107) style.bg = BASE16[c - 100 + 8];
      else if (c === 39) delete style.fg;
      else if (c === 49) delete style.bg;
      else if (c === 38 || c === 48) {
        const key = c === 38 ? "fg" : "bg";
        let value: string | undefined;
        if (codes[k + 1] === 5) {
          value = color256(codes[k + 2] ?? -1);
          k += 2;
        } else if (codes[k + 1] === 2) {
          const [r, g, b] = [codes[k + 2] ?? 0, codes[k + 3] ?? 0, codes[k + 4] ?? 0];
          value = `rgb(${r},${g},${b})`;
          k += 4;
        }
        if (value) style[key] = value;
      }
    }
    this.style = style;
  }
}

function spansOf(cells: Cell[]): AnsiLine {
  const spans: AnsiLine = [];
  for (const cell of cells) {
    const last = spans[spans.length - 1];
    if (last && last.stream === cell.stream && sameStyle(last.style, cell.style)) last.text += cell.ch;
    else spans.push({ text: cell.ch, style: cell.style, stream: cell.stream });
  }
  return spans;
}

/** Renders chunks (in the order written) to lines. */
export function renderAnsi(chunks: readonly { stream: "stdout" | "stderr"; text: string }[], maxLines?: number): AnsiLine[] {
  const screen = new AnsiScreen(maxLines);
  for (const chunk of chunks) screen.write(chunk.text, chunk.stream);
  return screen.lines();
}
