import type { Terminal } from "@xterm/xterm";
import type { FitAddon } from "@xterm/addon-fit";
import { emptyReplay, newBytes, shown, type ReplayState } from "@/lib/ide/terminal-replay";

export type XtermModules = { Terminal: typeof Terminal; FitAddon: typeof FitAddon };

/** One terminal:input event at most (the runner's TERMINAL_INPUT_MAX_BYTES); a longer paste is split. */
const INPUT_CHUNK_CHARS = 16 * 1024;

export interface TerminalViewEvents {
  input: (data: string) => void;
  resize: (cols: number, rows: number) => void;
  /** A chunk started past what this view has: reattach from `offset`. */
  gap: (offset: number) => void;
  changed: () => void;
}

/**
 * One tab's xterm.js on one remote PTY: writes the bytes it has not shown yet (offset bookkeeping in
 * lib/ide/terminal-replay.ts), acks each chunk once xterm has parsed it (the runner's flow control), sends
 * keystrokes as typed (Ctrl+C is a byte like any other: the PTY turns it into SIGINT) and its size
 * whenever the fit addon changes it.
 */
export class TerminalView {
  readonly host: HTMLDivElement;
  readonly term: Terminal;
  private readonly fitAddon: FitAddon;
  state: ReplayState;
  private resizeTimer: ReturnType<typeof setTimeout> | null = null;

  constructor(
    modules: XtermModules,
    saved: ReplayState | undefined,
    private readonly events: TerminalViewEvents,
  ) {
    this.host = document.createElement("div");
    this.host.className = "terminal-view";
    this.term = new modules.Terminal({
      fontFamily: '"JetBrains Mono Variable", monospace',
      fontSize: 13,
      cursorBlink: true,
      scrollback: 5000,
      allowProposedApi: false,
      theme: { background: "#0f1115", foreground: "#e6e9ef", cursor: "#5b9dff", selectionBackground: "#2a3b5c" },
    });
    this.fitAddon = new modules.FitAddon();
    this.term.loadAddon(this.fitAddon);
    this.state = saved ?? emptyReplay();
    // The screen as it was before the reload; output resumes from the saved offset right after it.
    if (this.state.tail.length) this.term.write(this.state.tail);
    this.term.onData((data) => {
      for (let i = 0; i < data.length; i += INPUT_CHUNK_CHARS) this.events.input(data.slice(i, i + INPUT_CHUNK_CHARS));
    });
    this.term.onResize(({ cols, rows }) => {
      if (this.resizeTimer) clearTimeout(this.resizeTimer);
      this.resizeTimer = setTimeout(() => this.events.resize(cols, rows), 60);
    });
  }

  /** Opens xterm in the view's host once the host is in the page. */
  open(): void {
    if (!this.term.element) this.term.open(this.host);
    this.fit();
  }

  fit(): void {
    if (!this.term.element || this.host.offsetParent === null) return;
    try {
      this.fitAddon.fit();
    } catch {
      // not laid out yet
    }
  }

  get size(): { cols: number; rows: number } {
    return { cols: this.term.cols, rows: this.term.rows };
  }

  /** A chunk of output at `offset`; `ack` is called once it is on screen (or was a duplicate). */
  output(offset: number, data: Uint8Array, ack: () => void): void {
    const piece = newBytes(this.state, offset, data);
    if (piece === null) return ack();
    if ("gap" in piece) {
      ack();
      return this.events.gap(this.state.offset);
    }
    this.state = shown(this.state, piece.bytes);
    this.term.write(piece.bytes, ack);
    this.events.changed();
  }

  /** A line of the tab's own (not the shell's): not part of the transcript, so not counted. */
  note(text: string): void {
    this.term.write(`\r\n\x1b[2m${text}\x1b[0m\r\n`);
  }

  focus(): void {
    this.term.focus();
  }

  dispose(): void {
    if (this.resizeTimer) clearTimeout(this.resizeTimer);
    this.term.dispose();
    this.host.remove();
  }
}
