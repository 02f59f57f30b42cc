import { mkdtemp, realpath, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { loadAgentConfig } from "../config";
import { TERMINAL_HIGH_WATER, TerminalManager } from "./terminal-manager";

// The helper the image ships (docker/sandbox/berth-pty.py), run here on the host's python3.
const HELPER = path.resolve(import.meta.dirname, "../../../../docker/sandbox/berth-pty.py");

let root: string;
let terminals: TerminalManager;

beforeEach(async () => {
  root = await realpath(await mkdtemp(path.join(tmpdir(), "berth-terminal-test-")));
  terminals = new TerminalManager(
    loadAgentConfig({ PATH: process.env.PATH, BERTH_WORKSPACE: root, HOME: root, BERTH_PTY_HELPER: HELPER }),
  );
});

afterEach(async () => {
  terminals.closeAll();
  await rm(root, { recursive: true, force: true });
});

/** Reads from `offset` until `pattern` shows up in what was read (the whole transcript so far). */
async function readUntil(terminalId: string, pattern: RegExp, from = { offset: 0, text: "" }) {
  let { offset, text } = from;
  let exitCode: number | null = null;
  const deadline = Date.now() + 10_000;
  while (!pattern.test(text)) {
    if (Date.now() > deadline) throw new Error(`no ${String(pattern)} in ${JSON.stringify(text.slice(-500))}`);
    const reply = await terminals.read({ terminalId, offset, maxBytes: 65536, waitMs: 2000 });
    const data = Buffer.from(reply.data, "base64");
    offset += data.length;
    text += data.toString("utf8");
    exitCode = reply.exitCode;
    if (reply.eof) break;
  }
  return { offset, text, exitCode };
}

const type = (terminalId: string, text: string) => terminals.input(terminalId, Buffer.from(text));

describe("TerminalManager", () => {
  it("runs a login shell on a PTY in the workspace: TERM, cd and export persist, resize reaches tput", async () => {
    const { terminalId } = terminals.open({ cols: 80, rows: 24 });
    type(terminalId, "echo TERM=$TERM; tty; pwd\r");
    let seen = await readUntil(terminalId, new RegExp(`TERM=xterm-256color[\\s\\S]*/dev/pts/\\d+[\\s\\S]*${root}`));
    type(terminalId, "cd /tmp && export A=1\rpwd; echo A=$A\r");
    seen = await readUntil(terminalId, /\/tmp\r\nA=1/, seen);
    terminals.resize(terminalId, 123, 40);
    type(terminalId, "tput cols; tput lines\r");
    seen = await readUntil(terminalId, /123\r\n40/, seen);
    expect(seen.text).toContain("A=1");
  });

  it("Ctrl+C interrupts the foreground program through the line discipline; exit ends the terminal with its status", async () => {
    const { terminalId } = terminals.open({ cols: 80, rows: 24 });
    type(terminalId, "sleep 300\r");
    let seen = await readUntil(terminalId, /sleep 300/);
    await new Promise((r) => setTimeout(r, 300));
    type(terminalId, "\x03");
    seen = await readUntil(terminalId, /\^C/, seen);
    type(terminalId, "echo after=$?\r");
    seen = await readUntil(terminalId, /after=130/, seen);
    type(terminalId, "exit 7\r");
    seen = await readUntil(terminalId, /$^/, seen);
    expect(seen.exitCode).toBe(7);
    const last = await terminals.read({ terminalId, offset: seen.offset, maxBytes: 0, waitMs: 0 }).catch(() => null);
    // Read to its end, the terminal is gone; its exit status came with the last read.
    expect(last).toBeNull();
    expect(terminals.openCount()).toBe(0);
  });

  it("a terminal nobody reads stops its program once the unread output reaches the high-water mark", async () => {
    const { terminalId } = terminals.open({ cols: 80, rows: 24 });
    type(terminalId, "yes 0123456789\r");
    await new Promise((r) => setTimeout(r, 1500));
    const first = await terminals.read({ terminalId, offset: 0, maxBytes: 0, waitMs: 0 });
    await new Promise((r) => setTimeout(r, 500));
    const second = await terminals.read({ terminalId, offset: 0, maxBytes: 0, waitMs: 0 });
    // The helper's and the PTY's own buffers sit on top of the agent's.
    expect(second.end).toBeLessThan(TERMINAL_HIGH_WATER + 1024 * 1024);
    expect(second.end).toBe(first.end);
    // Reading lets it go on.
    const more = await terminals.read({ terminalId, offset: 0, maxBytes: 4 * 1024 * 1024, waitMs: 0 });
    const next = await terminals.read({
      terminalId,
      offset: Buffer.from(more.data, "base64").length,
      maxBytes: 0,
      waitMs: 300,
    });
    await new Promise((r) => setTimeout(r, 300));
    const after = await terminals.read({ terminalId, offset: next.offset, maxBytes: 0, waitMs: 0 });
    expect(after.end).toBeGreaterThan(second.end);
    type(terminalId, "\x03");
  });

  it("close hangs up the shell and its foreground job", async () => {
    const { terminalId } = terminals.open({ cols: 80, rows: 24 });
    type(terminalId, "sleep 300\r");
    const seen = await readUntil(terminalId, /sleep 300/);
    terminals.close(terminalId);
    // A watch for the exit, bounded below the manager's SIGKILL fallback (8 s) and the test's timeout: the hangup
    // (exit 129) may take seconds on a loaded machine, and a shorter watch ended empty there (CI's retry caught it).
    const reply = await terminals.read({ terminalId, offset: seen.offset, maxBytes: 0, waitMs: 7500 });
    expect(reply.exitCode).toBe(129);
    expect(terminals.openCount()).toBe(0);
  });

  it("close right after open still hangs up the shell, not a KILL after the grace", async () => {
    // The PTY echoes typed bytes before the shell's process has its own group (setsid): a hangup sent to the group
    // then found none, and the shell ran on until the helper's KILL (137), 5 s later.
    const { terminalId } = terminals.open({ cols: 80, rows: 24 });
    type(terminalId, "sleep 300\r");
    terminals.close(terminalId);
    const reply = await terminals.read({ terminalId, offset: 0, maxBytes: 0, waitMs: 7500 });
    expect(reply.exitCode).toBe(129);
  });

  it("refuses bad params by name", async () => {
    expect(() => terminals.dispatch("terminal.open", { cols: 0, rows: 24 })).toThrow(
      /Invalid terminal.open params: cols/,
    );
    expect(() => terminals.input("term_nope", Buffer.from("x"))).toThrow("Unknown terminalId: term_nope");
  });
});
