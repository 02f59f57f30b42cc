import { type StdioOptions, spawn } from "node:child_process";
import { closeSync } from "node:fs";
import { readdir, readFile } from "node:fs/promises";
import { constants } from "node:os";
import { LentOutputReader } from "./lent-output";
import { type OutputFifo, outputFifoSupply } from "./output-fifos";

/** Time between SIGTERM and SIGKILL when a process group is stopped (docs/tools.md). */
export const KILL_GRACE_MS = 1000;

export function isGroupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Live (non-zombie) members of a process group, read from /proc; null where /proc is unreadable. */
export async function groupMembers(pgid: number): Promise<number[] | null> {
  let entries: string[];
  try {
    entries = await readdir("/proc");
  } catch {
    return null;
  }
  const members: number[] = [];
  await Promise.all(
    entries
      .filter((name) => /^\d+$/.test(name))
      .map(async (name) => {
        const stat = await readFile(`/proc/${name}/stat`, "utf8").catch(() => "");
        // Fields after the parenthesised command name: state, ppid, pgrp, ...
        const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
        if (fields[0] !== "Z" && Number(fields[2]) === pgid) members.push(Number(name));
      }),
  );
  return members;
}

/** TERM the whole group, then KILL whatever is left after the grace period. */
export async function killGroup(pgid: number, graceMs = KILL_GRACE_MS): Promise<void> {
  try {
    process.kill(-pgid, "SIGTERM");
  } catch {
    return; // already gone
  }
  const deadline = Date.now() + graceMs;
  while (Date.now() < deadline) {
    await sleep(25);
    const members = await groupMembers(pgid);
    if (members ? members.length === 0 : !isGroupAlive(pgid)) return;
  }
  try {
    process.kill(-pgid, "SIGKILL");
  } catch {
    // exited during the grace period
  }
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export function signalNumber(signal: NodeJS.Signals): number {
  return constants.signals[signal] ?? 0;
}

export interface GroupRunOptions {
  file: string;
  args: string[];
  cwd: string;
  env: Record<string, string>;
  timeoutMs: number;
  signal: AbortSignal;
  /**
   * Each chunk of output, in order, with its offset in its stream. With `fifoDir` the chunk is lent (its memory is
   * read into again once `release` is called); without it, `release` does nothing and the chunk is the caller's.
   */
  onOutput: (stream: "stdout" | "stderr", chunk: Buffer, offset: number, release: () => void) => void;
  /**
   * Read stdout and stderr through FIFOs made in this folder, into a few reused buffers (lent-output.ts), not through
   * Node's pipes (a new Buffer per read): for output in bulk, run_script's. Falls back to pipes when FIFOs cannot be made.
   */
  fifoDir?: string;
  /** Bytes the program reads on fd 3, then EOF: run_script hands the interpreter the script it checked this way. */
  fd3?: Buffer;
}

export interface GroupRunResult {
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  timedOut: boolean;
  aborted: boolean;
  spawnError?: string;
  /** Group members still alive after the main process exited (they are killed). */
  survivors: number;
  startedAt: Date;
  endedAt: Date;
  durationMs: number;
}

/** How long to let pipes drain after the main process exits, when a survivor holds them open. */
const DRAIN_MS = 200;

/**
 * Runs one program as the leader of its own process group with stdin closed, streams its output,
 * and kills the whole group on timeout or abort (TERM, grace, KILL). Leftover group members after a
 * normal exit are counted (run_script reports cleanup-incomplete) and killed.
 */
export async function runInGroup(options: GroupRunOptions): Promise<GroupRunResult> {
  const supply = options.fifoDir === undefined ? null : outputFifoSupply(options.fifoDir);
  const fifos = supply ? await supply.take().catch(() => null) : null;
  const startedAt = new Date();
  try {
    return await runWithStdio(options, startedAt, fifos === null ? null : { stdout: fifos[0] as OutputFifo, stderr: fifos[1] as OutputFifo });
  } finally {
    // The next run's set is made now that this one's output is read, not while it starts.
    supply?.prepare();
  }
}

const noRelease = () => undefined;

function runWithStdio(
  options: GroupRunOptions,
  startedAt: Date,
  fifos: { stdout: OutputFifo; stderr: OutputFifo } | null,
): Promise<GroupRunResult> {
  return new Promise((resolve) => {
    let timedOut = false;
    let aborted = false;
    const offsets = { stdout: 0, stderr: 0 };
    const output: StdioOptions = fifos ? ["ignore", fifos.stdout.writeFd, fifos.stderr.writeFd] : ["ignore", "pipe", "pipe"];
    let child: ReturnType<typeof spawn>;
    try {
      child = spawn(options.file, options.args, {
        cwd: options.cwd,
        env: options.env,
        detached: true,
        stdio: options.fd3 ? [...output, "pipe"] : output,
      });
    } catch (error) {
      if (fifos) for (const { readFd } of [fifos.stdout, fifos.stderr]) closeSync(readFd);
      throw error;
    } finally {
      // The child has its own copies of the write ends now (or never will): EOF comes when it and its descendants
      // close theirs.
      if (fifos) for (const { writeFd } of [fifos.stdout, fifos.stderr]) closeSync(writeFd);
    }
    const fd3 = child.stdio[3];
    if (options.fd3 && fd3 && "end" in fd3) {
      // An interpreter that exits without reading it all closes the pipe: not an error of ours.
      fd3.on("error", () => undefined);
      fd3.end(options.fd3);
    }
    const readers = fifos
      ? (["stdout", "stderr"] as const).map(
          (stream) =>
            new LentOutputReader(fifos[stream].readFd, (chunk, release) => {
              const offset = offsets[stream];
              offsets[stream] += chunk.length;
              options.onOutput(stream, chunk, offset, release);
            }),
        )
      : [];
    for (const stream of ["stdout", "stderr"] as const) {
      child[stream]?.on("data", (chunk: Buffer) => {
        const offset = offsets[stream];
        offsets[stream] += chunk.length;
        options.onOutput(stream, chunk, offset, noRelease);
      });
    }
    const stop = () => {
      if (child.pid !== undefined) void killGroup(child.pid);
    };
    const timer = setTimeout(() => {
      timedOut = true;
      stop();
    }, options.timeoutMs);
    const onAbort = () => {
      aborted = true;
      stop();
    };
    if (options.signal.aborted) onAbort();
    else options.signal.addEventListener("abort", onAbort, { once: true });

    let done = false;
    const finish = (result: Omit<GroupRunResult, "startedAt" | "endedAt" | "durationMs" | "timedOut" | "aborted">) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      options.signal.removeEventListener("abort", onAbort);
      const endedAt = new Date();
      resolve({
        ...result,
        timedOut,
        aborted,
        startedAt,
        endedAt,
        durationMs: endedAt.getTime() - startedAt.getTime(),
      });
    };

    child.on("error", (error) => {
      for (const reader of readers) reader.destroy();
      finish({ exitCode: null, signal: null, spawnError: error.message, survivors: 0 });
    });
    child.on("exit", (code, signal) => {
      // What is left in the pipes is read at once, as Node's pipes would, so a survivor's grace period measures it
      // and not a slow consumer's backlog.
      for (const reader of readers) reader.unthrottle();
      void (async () => {
        const pid = child.pid as number;
        const closed = Promise.all([
          new Promise<void>((r) => child.on("close", () => r())),
          ...readers.map((reader) => reader.ended),
        ]).then(() => undefined);
        await Promise.race([closed, sleep(DRAIN_MS)]);
        const members = await groupMembers(pid);
        const survivors = members ? members.length : isGroupAlive(pid) ? 1 : 0;
        if (survivors > 0) await killGroup(pid);
        // Unblock pipes a killed survivor may have left half-open.
        await Promise.race([closed, sleep(DRAIN_MS)]);
        child.stdout?.destroy();
        child.stderr?.destroy();
        for (const reader of readers) reader.destroy();
        finish({ exitCode: code, signal, survivors });
      })();
    });
  });
}
