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
