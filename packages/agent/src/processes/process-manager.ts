import { type ChildProcessByStdio, spawn } from "node:child_process";
import { closeSync, mkdirSync, openSync, writeSync } from "node:fs";
import { open, stat } from "node:fs/promises";
import path from "node:path";
import type { Readable, Writable } from "node:stream";
import { randomBytes } from "node:crypto";
import {
  AgentNotification,
  BASH_MAX_RUNNING,
  type BackgroundProcessInfo,
  type BashLogsDetails,
  type ProcessStatus,
} from "@berth/protocol";
import type { EmitOutput, Notify } from "../tools/tool-context";
import { fail } from "../tools/tool-failure-error";
import { killGroup, signalNumber } from "./process-group";
import type { Launch } from "./launch";

interface ManagedProcess {
  info: BackgroundProcessInfo;
  child: ChildProcessByStdio<Writable, Readable, Readable>;
  logPath: string;
  logFd: number | null;
  offsets: { stdout: number; stderr: number };
  /** Whether the log file currently ends at a line start, and which stream wrote last. */
  atLineStart: boolean;
  lastStream: "stdout" | "stderr" | null;
  stopRequested: boolean;
  /** The call that started it: output carries it too, so the runner can log from the first byte. */
  startCallId: string | undefined;
}

/**
 * Background processes of the session (bash action=start). Each runs as its own process group; its
 * output is kept in full in a log file with `[stdout] ` / `[stderr] ` line prefixes in arrival order,
 * so any offset can be read back later, and is streamed live as `output` notifications.
 */
export class ProcessManager {
  private readonly processes = new Map<string, ManagedProcess>();

  constructor(
    private readonly stateDir: string,
    private readonly notify: Notify,
    private readonly output: EmitOutput,
    /** How a command is started (as the workspace user, asWorkspaceUser); as is by default. */
    private readonly launch: (file: string, args: string[]) => Launch = (file, args) => ({ file, args }),
  ) {}

  start(command: string, cwd: { real: string; rel: string }, env: Record<string, string>, startCallId?: string): BackgroundProcessInfo {
    const running = this.runningCount();
    if (running >= BASH_MAX_RUNNING) {
      fail(
        "too_many_processes",
        `Too many running processes: ${running} running (limit ${BASH_MAX_RUNNING}). Stop one with action=stop first.`,
      );
    }
    mkdirSync(this.stateDir, { recursive: true, mode: 0o700 });
    const processId = `proc_${randomBytes(16).toString("hex")}`;
    // A name of its own, never shown: the state folder cannot be listed by workspace code (main.ts), so it
    // cannot find the file to rewrite what `logs` returns.
    const logPath = path.join(this.stateDir, `${processId}-${randomBytes(16).toString("hex")}.log`);
    const logFd = openSync(logPath, "a", 0o600);
    const launch = this.launch("bash", ["-c", command]);
    const child = spawn(launch.file, launch.args, {
      cwd: cwd.real,
      env,
      detached: true,
      stdio: ["pipe", "pipe", "pipe"],
    });
    const managed: ManagedProcess = {
      info: {
        processId,
        command,
        cwd: cwd.rel,
        status: "RUNNING",
        pid: child.pid ?? null,
        exitCode: null,
        startedAt: new Date().toISOString(),
        endedAt: null,
      },
      child,
      startCallId,
      logPath,
      logFd,
      offsets: { stdout: 0, stderr: 0 },
      atLineStart: true,
      lastStream: null,
      stopRequested: false,
    };
    this.processes.set(processId, managed);
    // A write to a process that exited must not crash the agent.
    child.stdin.on("error", () => undefined);
    for (const stream of ["stdout", "stderr"] as const) {
      child[stream].on("data", (chunk: Buffer) => this.onOutput(managed, stream, chunk));
    }
    child.on("error", (error) => {
      this.appendLog(managed, "stderr", Buffer.from(`berth-agent: could not start: ${error.message}\n`));
      this.onExit(managed, 127, null);
    });
    child.on("exit", (code, signal) => this.onExit(managed, code, signal));
    child.on("close", () => {
      if (managed.logFd !== null) closeSync(managed.logFd);
      managed.logFd = null;
    });
    this.emitStatus(managed);
    return { ...managed.info };
  }

  get(processId: string | undefined): BackgroundProcessInfo {
    return { ...this.require(processId).info };
  }

  runningCount(): number {
    let running = 0;
    for (const p of this.processes.values()) if (p.info.status === "RUNNING") running++;
    return running;
  }

  list(): BackgroundProcessInfo[] {
    return [...this.processes.values()]
      .map((p) => ({ ...p.info }))
      .sort((a, b) => (a.startedAt < b.startedAt ? -1 : a.startedAt > b.startedAt ? 1 : 0));
  }

  /** Reads the stored log from a byte offset (negative: from the end), cut back to a whole UTF-8 character. */
  async logs(processId: string | undefined, offset: number, limit: number): Promise<BashLogsDetails> {
    const managed = this.require(processId);
    const size = (await stat(managed.logPath)).size;
    const start = Math.min(size, offset < 0 ? Math.max(0, size + offset) : offset);
    const length = Math.min(limit, size - start);
    const buffer = Buffer.alloc(length);
    const handle = await open(managed.logPath, "r");
    try {
      await handle.read(buffer, 0, length, start);
    } finally {
      await handle.close();
    }
    const usable = start + length < size ? wholeUtf8Prefix(buffer) : length;
    const nextOffset = start + usable;
    return {
      processId: managed.info.processId,
      content: buffer.subarray(0, usable).toString("utf8"),
      offset: start,
      nextOffset,
      truncated: nextOffset < size,
      status: managed.info.status,
      exitCode: managed.info.exitCode,
    };
  }

  write(processId: string | undefined, input: string | undefined, closeStdin: boolean): { bytesWritten: number } {
    const managed = this.require(processId);
    if (managed.info.status !== "RUNNING") fail("not_running", `Process is not running: ${managed.info.processId}`);
    const data = Buffer.from(input ?? "", "utf8");
    if (data.length > 0) managed.child.stdin.write(data);
    if (closeStdin) managed.child.stdin.end();
    return { bytesWritten: data.length };
  }

  async stop(processId: string | undefined): Promise<BackgroundProcessInfo> {
    const managed = this.require(processId);
    if (managed.info.status === "RUNNING" && managed.info.pid !== null) {
      managed.stopRequested = true;
      await killGroup(managed.info.pid);
      if (managed.info.status === "RUNNING") await new Promise<void>((r) => managed.child.once("exit", () => r()));
    }
    return { ...managed.info };
  }

  /** Agent shutdown: nothing of the session outlives its agent. */
  async stopAll(): Promise<void> {
    await Promise.all(
      [...this.processes.values()].filter((p) => p.info.status === "RUNNING").map((p) => this.stop(p.info.processId)),
    );
  }

  private require(processId: string | undefined): ManagedProcess {
    if (processId === undefined) return fail("invalid_args", "processId: required for this action");
    const managed = this.processes.get(processId);
    if (!managed) return fail("unknown_process", `Unknown processId: ${processId}`);
    return managed;
  }

  private onOutput(managed: ManagedProcess, stream: "stdout" | "stderr", chunk: Buffer): void {
    this.output(
      { processId: managed.info.processId, ...(managed.startCallId ? { callId: managed.startCallId } : {}), stream, offset: managed.offsets[stream] },
      chunk,
    );
    managed.offsets[stream] += chunk.length;
    this.appendLog(managed, stream, chunk);
  }

  private appendLog(managed: ManagedProcess, stream: "stdout" | "stderr", chunk: Buffer): void {
    if (managed.logFd === null) return;
    const parts: Buffer[] = [];
    // The other stream interrupted a partial line: end it so every line carries one prefix.
    if (!managed.atLineStart && managed.lastStream !== stream) {
      parts.push(Buffer.from("\n"));
      managed.atLineStart = true;
    }
    const prefix = Buffer.from(`[${stream}] `);
    let from = 0;
    while (from < chunk.length) {
      if (managed.atLineStart) parts.push(prefix);
      const newline = chunk.indexOf(10, from);
      const to = newline === -1 ? chunk.length : newline + 1;
      parts.push(chunk.subarray(from, to));
      managed.atLineStart = newline !== -1;
      from = to;
    }
    managed.lastStream = stream;
    writeSync(managed.logFd, Buffer.concat(parts));
  }

  private onExit(managed: ManagedProcess, code: number | null, signal: NodeJS.Signals | null): void {
    if (managed.info.status !== "RUNNING") return;
    managed.info.status = managed.stopRequested ? "STOPPED" : "EXITED";
    managed.info.exitCode = code ?? (signal ? 128 + signalNumber(signal) : null);
    managed.info.endedAt = new Date().toISOString();
    this.emitStatus(managed);
  }

  private emitStatus(managed: ManagedProcess): void {
    const status: ProcessStatus = managed.info.status;
    this.notify(AgentNotification.ProcessStatus, {
      processId: managed.info.processId,
      status,
      exitCode: managed.info.exitCode,
    });
  }
}

/** Length of the longest prefix that does not end inside a multi-byte UTF-8 character. */
export function wholeUtf8Prefix(buffer: Buffer): number {
  let end = buffer.length;
  // Walk back over at most 3 continuation bytes to the lead byte of the last character.
  let i = end - 1;
  while (i >= 0 && i >= end - 4 && ((buffer[i] as number) & 0xc0) === 0x80) i--;
  if (i < 0) return end;
  const lead = buffer[i] as number;
  const need = lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : lead >= 0xc0 ? 2 : 1;
  if (end - i < need) end = i;
  return end;
}
