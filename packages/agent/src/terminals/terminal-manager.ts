import { type ChildProcessByStdio, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import type { Readable, Writable } from "node:stream";
import {
  formatIssues,
  AgentTerminalCloseParamsSchema,
  AgentTerminalInputParamsSchema,
  AgentTerminalOpenParamsSchema,
  AgentTerminalReadParamsSchema,
  AgentTerminalResizeParamsSchema,
  type AgentTerminalReadResult,
  RpcErrorCode,
  TERMINAL_MAX_OPEN,
  TerminalMethod,
  type TerminalMethodName,
} from "@berth/protocol";
import type { z } from "zod";
import type { AgentConfig } from "../config";
import { childEnv } from "../processes/child-env";
import { asWorkspaceUser } from "../processes/launch";
import { signalNumber } from "../processes/process-group";
import { TerminalFault } from "./terminal-fault";

/** Output the runner has not read yet, per terminal; past it the helper (and so the program) waits. */
export const TERMINAL_HIGH_WATER = 1024 * 1024;
const LOW_WATER = TERMINAL_HIGH_WATER / 2;
const KILL_AFTER_MS = 8_000;

interface PendingRead {
  offset: number;
  maxBytes: number;
  timer: NodeJS.Timeout;
  resolve: (result: AgentTerminalReadResult) => void;
}

interface ManagedTerminal {
  terminalId: string;
  child: ChildProcessByStdio<Writable, Readable, Readable>;
  pid: number;
  /** Unread output: chunks holding bytes [base, end). */
  chunks: Buffer[];
  base: number;
  end: number;
  paused: boolean;
  exitCode: number | null;
  /** stdout closed: `end` is final. */
  closed: boolean;
  pending: PendingRead | null;
}

/**
 * The session's terminals: each a login shell on a PTY made by the berth-pty helper (a Python script
 * shipped in the image, since Node has no PTY API). Output is held until the runner reads it by offset
 * (terminal.read, a long poll); when a terminal's unread output passes TERMINAL_HIGH_WATER the helper's
 * stdout is paused, which blocks the helper, which stops reading the PTY, which blocks the program.
 */
export class TerminalManager {
  private readonly terminals = new Map<string, ManagedTerminal>();

  constructor(
    private readonly config: AgentConfig,
    private readonly log: (message: string) => void = () => undefined,
  ) {}

  /** Terminals whose shell still runs: they keep the sandbox from counting as idle. */
  openCount(): number {
    let open = 0;
    for (const t of this.terminals.values()) if (t.exitCode === null) open++;
    return open;
  }

  dispatch(method: TerminalMethodName, params: unknown): Promise<unknown> | unknown {
    switch (method) {
      case TerminalMethod.Open:
        return this.open(parse(AgentTerminalOpenParamsSchema, params, method));
      case TerminalMethod.Input: {
        const input = parse(AgentTerminalInputParamsSchema, params, method);
        return this.input(input.terminalId, Buffer.from(input.data, "base64"));
      }
      case TerminalMethod.Resize: {
        const input = parse(AgentTerminalResizeParamsSchema, params, method);
        return this.resize(input.terminalId, input.cols, input.rows);
      }
      case TerminalMethod.Read:
        return this.read(parse(AgentTerminalReadParamsSchema, params, method));
      case TerminalMethod.Close:
        return this.close(parse(AgentTerminalCloseParamsSchema, params, method).terminalId);
      case TerminalMethod.List:
        return {
          terminals: [...this.terminals.values()].map((t) => ({
            terminalId: t.terminalId,
            pid: t.pid,
            end: t.end,
            exitCode: t.exitCode,
          })),
        };
    }
  }

  open(input: z.output<typeof AgentTerminalOpenParamsSchema>): { terminalId: string; pid: number } {
    const open = this.openCount();
    if (open >= TERMINAL_MAX_OPEN) {
      throw new TerminalFault(
        RpcErrorCode.InvalidParams,
        `Too many open terminals: ${open} open (limit ${TERMINAL_MAX_OPEN}). Close one first.`,
      );
    }
    const terminalId = `term_${randomBytes(16).toString("hex")}`;
    const env = childEnv(this.config, input.env ?? {}, { TERM: "xterm-256color", COLORTERM: "truecolor" });
    const launch = asWorkspaceUser(this.config, "python3", [
      this.config.ptyHelper,
      String(input.cols),
      String(input.rows),
      this.config.workspace,
    ]);
    const child = spawn(launch.file, launch.args, {
      cwd: this.config.workspace,
      env,
      stdio: ["pipe", "pipe", "pipe"],
    });
    if (child.pid === undefined)
      throw new TerminalFault(RpcErrorCode.InternalError, "could not start the terminal helper (python3)");
    const terminal: ManagedTerminal = {
      terminalId,
      child,
      pid: child.pid,
      chunks: [],
      base: 0,
      end: 0,
      paused: false,
      exitCode: null,
      closed: false,
      pending: null,
    };
    this.terminals.set(terminalId, terminal);
    child.stdin.on("error", () => undefined);
    child.stdout.on("data", (chunk: Buffer) => {
      terminal.chunks.push(chunk);
      terminal.end += chunk.length;
      if (!terminal.paused && terminal.end - terminal.base > TERMINAL_HIGH_WATER) {
        terminal.paused = true;
        child.stdout.pause();
      }
      this.answer(terminal);
    });
    child.stderr.on("data", (chunk: Buffer) => this.log(`terminal ${terminalId}: ${chunk.toString("utf8").trimEnd()}`));
    child.on("exit", (code, signal) => {
      terminal.exitCode = code ?? (signal ? 128 + signalNumber(signal) : 1);
      this.answer(terminal);
    });
    child.stdout.on("close", () => {
      terminal.closed = true;
      this.answer(terminal);
    });
    child.on("error", (error) => {
      this.log(`terminal ${terminalId}: ${error.message}`);
      terminal.exitCode ??= 127;
      terminal.closed = true;
      this.answer(terminal);
    });
    return { terminalId, pid: child.pid };
  }

  input(terminalId: string, data: Buffer): { bytesWritten: number } {
    const terminal = this.running(terminalId);
    if (data.length > 0) terminal.child.stdin.write(frame("i", data));
    return { bytesWritten: data.length };
  }

  resize(terminalId: string, cols: number, rows: number): { ok: true } {
    const terminal = this.running(terminalId);
    const size = Buffer.alloc(4);
    size.writeUInt16BE(rows, 0);
    size.writeUInt16BE(cols, 2);
    terminal.child.stdin.write(frame("w", size));
    return { ok: true };
  }

  async read(input: z.output<typeof AgentTerminalReadParamsSchema>): Promise<AgentTerminalReadResult> {
    const terminal = this.require(input.terminalId);
    if (input.offset > terminal.end || input.offset < terminal.base) {
      throw new TerminalFault(
        RpcErrorCode.InvalidParams,
        `offset: ${input.offset} is outside the unread output of ${input.terminalId} (bytes ${terminal.base} to ${terminal.end})`,
      );
    }
    this.release(terminal, input.offset);
    // A newer read supersedes an older one (the runner gave up waiting on it).
    if (terminal.pending) this.settle(terminal, true);
    return new Promise<AgentTerminalReadResult>((resolve) => {
      const timer = setTimeout(() => this.settle(terminal, true), input.waitMs);
      terminal.pending = { offset: input.offset, maxBytes: input.maxBytes, timer, resolve };
      this.answer(terminal);
    });
  }

  close(terminalId: string): { ok: true } {
    const terminal = this.require(terminalId);
    if (terminal.exitCode !== null) return { ok: true };
    terminal.child.stdin.write(frame("h", Buffer.alloc(0)));
    terminal.child.stdin.end();
    // The helper KILLs the group itself; this is for a helper that is stuck.
    setTimeout(() => {
      if (terminal.exitCode === null) terminal.child.kill("SIGKILL");
    }, KILL_AFTER_MS).unref();
    return { ok: true };
  }

  /** Agent shutdown: every shell is hung up. */
  closeAll(): void {
    for (const terminal of this.terminals.values()) if (terminal.exitCode === null) this.close(terminal.terminalId);
  }

  private require(terminalId: string): ManagedTerminal {
    const terminal = this.terminals.get(terminalId);
    if (!terminal) throw new TerminalFault(RpcErrorCode.InvalidParams, `Unknown terminalId: ${terminalId}`);
    return terminal;
  }

  private running(terminalId: string): ManagedTerminal {
    const terminal = this.require(terminalId);
    if (terminal.exitCode !== null)
      throw new TerminalFault(
        RpcErrorCode.InvalidParams,
        `Terminal has exited: ${terminalId} (exit ${terminal.exitCode})`,
      );
    return terminal;
  }

  /** Drops output before `offset` (the runner has it) and resumes the helper below the low-water mark. */
  private release(terminal: ManagedTerminal, offset: number): void {
    while (terminal.base < offset) {
      const first = terminal.chunks[0] as Buffer;
      const drop = Math.min(first.length, offset - terminal.base);
      if (drop === first.length) terminal.chunks.shift();
      else terminal.chunks[0] = first.subarray(drop);
      terminal.base += drop;
    }
    if (terminal.paused && terminal.end - terminal.base < LOW_WATER) {
      terminal.paused = false;
      terminal.child.stdout.resume();
    }
  }

  /** Answers the pending read if it can be answered now. */
  private answer(terminal: ManagedTerminal): void {
    const pending = terminal.pending;
    if (!pending) return;
    const hasData = pending.maxBytes > 0 && terminal.end > pending.offset;
    // A watch (maxBytes 0) hears of the exit at once; a read waits for the last bytes (stdout closed).
    const over = terminal.exitCode !== null && (terminal.closed || pending.maxBytes === 0);
    if (hasData || over) this.settle(terminal, false);
  }

  private settle(terminal: ManagedTerminal, empty: boolean): void {
    const pending = terminal.pending;
    if (!pending) return;
    terminal.pending = null;
    clearTimeout(pending.timer);
    const data = empty ? Buffer.alloc(0) : slice(terminal, pending.offset, pending.maxBytes);
    const eof = terminal.closed && terminal.exitCode !== null && pending.offset + data.length === terminal.end;
    // Read to its end: nothing of it is needed any more.
    if (eof) this.terminals.delete(terminal.terminalId);
    pending.resolve({
      offset: pending.offset,
      data: data.toString("base64"),
      end: terminal.end,
      exitCode: terminal.exitCode,
      eof,
    });
  }
}

function slice(terminal: ManagedTerminal, offset: number, maxBytes: number): Buffer {
  const parts: Buffer[] = [];
  let at = terminal.base;
  let want = Math.min(maxBytes, terminal.end - offset);
  for (const chunk of terminal.chunks) {
    if (want <= 0) break;
    const chunkEnd = at + chunk.length;
    if (chunkEnd > offset) {
      const from = Math.max(0, offset - at);
      const piece = chunk.subarray(from, from + want);
      parts.push(piece);
      want -= piece.length;
    }
    at = chunkEnd;
  }
  return parts.length === 1 ? (parts[0] as Buffer) : Buffer.concat(parts);
}

function frame(kind: "i" | "w" | "h", payload: Buffer): Buffer {
  const header = Buffer.alloc(5);
  header.write(kind, 0, "latin1");
  header.writeUInt32BE(payload.length, 1);
  return Buffer.concat([header, payload]);
}

function parse<S extends z.ZodType>(schema: S, params: unknown, method: string): z.output<S> {
  const parsed = schema.safeParse(params);
  if (parsed.success) return parsed.data;
  const issues = formatIssues(parsed.error, "params");
  throw new TerminalFault(RpcErrorCode.InvalidParams, `Invalid ${method} params: ${issues}`);
}
