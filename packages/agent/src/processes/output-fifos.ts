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

/** Sets of FIFOs one `mkfifo` makes for the runs ahead: one process for eight runs, 32 fds held while they wait. */
export const FIFO_SETS_PER_BATCH = 8;

/**
 * A folder's FIFOs made ahead, a batch of sets at a time: a run takes a set made earlier instead of waiting for mkfifo
 * (a process of its own, 2-3 ms of the container's CPU, against ~15 ms for a whole `python3 -c pass`). When the stock
 * runs out, the run that finds it empty waits for one batch (so does the first run); the batch is remade once a run
 * ends with the stock empty. A set waiting here is open fds and no names.
 */
export class OutputFifoSupply {
  private stock: OutputFifo[][] = [];
  private making: Promise<void> | null = null;

  constructor(
    private readonly dir: string,
    /** FIFOs in a set (a run's stdout and stderr: 2). */
    private readonly count: number,
    private readonly batch = FIFO_SETS_PER_BATCH,
    private readonly make: (dir: string, count: number) => Promise<OutputFifo[]> = makeOutputFifos,
  ) {}

  /** A set from the stock, after a batch is made when it is empty; throws when none can be made. */
  async take(): Promise<OutputFifo[]> {
    if (this.stock.length === 0) await (this.making ?? this.restock());
    const set = this.stock.shift();
    if (!set) throw new Error(`no FIFOs could be made in ${this.dir}`);
    return set;
  }

  /** Makes the next batch in the background when the stock is empty (after a run, not while one starts). */
  prepare(): void {
    if (this.stock.length === 0) void (this.making ?? this.restock());
  }

  /** Settles once the batch being made (if any) is made or has failed. */
  async prepared(): Promise<void> {
    await this.making;
  }

  private restock(): Promise<void> {
    const making = this.make(this.dir, this.count * this.batch)
      .then((fifos) => {
        for (let at = 0; at < fifos.length; at += this.count) this.stock.push(fifos.slice(at, at + this.count));
      })
      // The run that waited for it falls back to pipes; the next run tries again.
      .catch(() => undefined)
      .finally(() => {
        if (this.making === making) this.making = null;
      });
    this.making = making;
    return making;
  }
}

const supplies = new Map<string, OutputFifoSupply>();

/** The one supply of stdout/stderr pairs for `dir` in this process (runInGroup's `fifoDir`). */
export function outputFifoSupply(dir: string): OutputFifoSupply {
  let supply = supplies.get(dir);
  if (!supply) supplies.set(dir, (supply = new OutputFifoSupply(dir, 2)));
  return supply;
}
