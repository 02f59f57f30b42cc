import { randomBytes } from "node:crypto";
import { chmod, link, mkdir, open, rename, stat, unlink } from "node:fs/promises";
import path from "node:path";

export interface AtomicWriteOptions {
  /** Fail with EEXIST instead of replacing an existing file (write_file mode=create). */
  exclusive?: boolean;
  /** File mode to keep (an existing file's permissions survive a rewrite). */
  mode?: number;
  /** Runs after the temp file is written, just before the rename; a throw leaves the target untouched. */
  beforeCommit?: () => Promise<void>;
}

/** Temp name next to the target, so the final rename never crosses a filesystem. */
export function tempPathFor(target: string): string {
  return path.join(path.dirname(target), `.${path.basename(target)}.berth-${randomBytes(6).toString("hex")}.tmp`);
}

/** Writes a temp file (flushed) next to target and returns its path; the caller renames it. */
export async function writeTemp(target: string, data: Uint8Array, mode?: number): Promise<string> {
  await mkdir(path.dirname(target), { recursive: true });
  const temp = tempPathFor(target);
  const handle = await open(temp, "wx", mode ?? 0o644);
  try {
    await handle.writeFile(data);
    await handle.sync();
  } catch (error) {
    await handle.close();
    await unlink(temp).catch(() => undefined);
    throw error;
  }
  await handle.close();
  if (mode !== undefined) await chmod(temp, mode);
  return temp;
}

/** Atomic write: readers see the old content or the new, never half a file. */
export async function atomicWrite(target: string, data: Uint8Array, options: AtomicWriteOptions = {}): Promise<void> {
  const mode = options.mode ?? (await existingMode(target));
  const temp = await writeTemp(target, data, mode);
  try {
    await options.beforeCommit?.();
    // link() refuses an existing name, which makes create-only atomic too.
    if (options.exclusive) await link(temp, target);
    else await rename(temp, target);
  } catch (error) {
    await unlink(temp).catch(() => undefined);
    throw error;
  }
  if (options.exclusive) await unlink(temp).catch(() => undefined);
}

export async function existingMode(target: string): Promise<number | undefined> {
  try {
    return (await stat(target)).mode & 0o7777;
  } catch {
    return undefined;
  }
}
