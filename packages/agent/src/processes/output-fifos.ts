import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import { closeSync, constants, openSync, unlinkSync } from "node:fs";
import { mkdir } from "node:fs/promises";
import path from "node:path";
import { promisify } from "node:util";

const execFileAsync = promisify(execFile);

/** One FIFO whose name is already gone: the agent's read end and the write end a child gets as its stdout. */
export interface OutputFifo {
  readFd: number;
  writeFd: number;
}

/**
 * `count` FIFOs for a child's output, made in `dir` (the agent's state folder: root's, mode 1733, so nobody can list
 * it, and the names are random), each opened at both ends and unlinked at once, so nothing in the container can open
 * one by name; from then on it is a pipe only this process and the child it is handed to hold. The read end is
 * non-blocking (libuv polls it), the write end blocking, as a program expects of its stdout.
 * Throws when they cannot be made (no mkfifo, no writable folder); the caller falls back to ordinary pipes.
 */
export async function makeOutputFifos(dir: string, count: number): Promise<OutputFifo[]> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const names = Array.from({ length: count }, () => path.join(dir, `out-${randomBytes(12).toString("hex")}`));
  // Node has no mkfifo(); one helper run makes them all.
  await execFileAsync("mkfifo", ["-m", "600", "--", ...names]);
  const fifos: OutputFifo[] = [];
  try {
    for (const name of names) {
      // Read end first and non-blocking, so the write end's open finds a reader and does not wait.
      const readFd = openSync(name, constants.O_RDONLY | constants.O_NONBLOCK);
      let writeFd: number;
      try {
        writeFd = openSync(name, constants.O_WRONLY);
      } catch (error) {
        closeSync(readFd);
        throw error;
      }
      fifos.push({ readFd, writeFd });
      unlinkSync(name);
    }
  } catch (error) {
    for (const { readFd, writeFd } of fifos) {
      closeSync(readFd);
      closeSync(writeFd);
    }
    throw error;
  } finally {
    for (const name of names) {
      try {
        unlinkSync(name);
      } catch {
        // already unlinked
      }
    }
  }
  return fifos;
}

/**
 * A folder's FIFOs made ahead: a run takes a set made after the run before it ended instead of waiting for mkfifo
 * (a process of its own: 2-3 ms inside the container, against ~15 ms for a whole `python3 -c pass`). Only the first
 * run, and one that starts while another's set is still being made, waits. A set waiting here is four open fds and
 * no names.
 */
export class OutputFifoSupply {
  private ready: Promise<OutputFifo[] | null> | null = null;

  constructor(
    private readonly dir: string,
    private readonly count: number,
    private readonly make: (dir: string, count: number) => Promise<OutputFifo[]> = makeOutputFifos,
  ) {}

  /** A set made ahead when there is one, else one made now; throws as makeOutputFifos does. */
  async take(): Promise<OutputFifo[]> {
    const ready = this.ready;
    this.ready = null;
    return (ready ? await ready : null) ?? this.make(this.dir, this.count);
  }

  /** Makes the next run's set in the background, unless one is made or being made. */
  prepare(): void {
    this.ready ??= this.make(this.dir, this.count).catch(() => null);
  }

  /** Settles once the set being made ahead (if any) is made or has failed. */
  async prepared(): Promise<void> {
    await this.ready;
  }
}

const supplies = new Map<string, OutputFifoSupply>();

/** The one supply of stdout/stderr pairs for `dir` in this process (runInGroup's `fifoDir`). */
export function outputFifoSupply(dir: string): OutputFifoSupply {
  let supply = supplies.get(dir);
  if (!supply) supplies.set(dir, (supply = new OutputFifoSupply(dir, 2)));
  return supply;
}
