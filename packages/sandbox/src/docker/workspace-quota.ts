import { execFile } from "node:child_process";
import { access, mkdir, readFile, readdir, rm, rmdir, truncate, writeFile } from "node:fs/promises";
import path from "node:path";
import { promisify } from "node:util";

const run = promisify(execFile);

/**
 * A size limit per workspace: each session's /workspace is its own ext4 filesystem on a sparse image file
 * (`<dir>/<volume>.img`, loop-mounted by the runner at `<dir>/<volume>/`), handed to Docker as a local volume
 * that binds that folder. A full workspace is ENOSPC inside that filesystem; the host loses at most the limit.
 *
 * Why this one (measured on the project's machine: `/` and Docker's data root are ext4 on one disk, mounted
 * without prjquota, Docker 20.10 overlay2): an XFS project quota needs an XFS data root; Docker's local volume
 * driver refuses `o=loop` (`failed to mount local volume: … data: loop: invalid argument`), because it calls
 * mount(2) and "loop" is a mount(8) option. So the runner, as root, mounts the image itself.
 *
 * Where it is not available (not root, no mkfs.ext4/mount, a remote Docker engine) the driver warns once at start
 * naming BERTH_WORKSPACE_SIZE and workspaces are plain named volumes with no limit: never a silent failure.
 *
 * Fail closed: the mount folder is root's with mode 0700 before the image is mounted on it, so if the mount were
 * ever missing the workspace user could not write into the host's disk through it.
 */
export class WorkspaceQuota {
  readonly dir: string;
  readonly sizeBytes: number;

  constructor(opts: { dir: string; sizeBytes: number }) {
    this.dir = opts.dir;
    this.sizeBytes = opts.sizeBytes;
  }

  /** Null when quotas can be enforced here, else the reason they cannot. */
  static async unavailableReason(opts: { localEngine: boolean }): Promise<string | null> {
    if (process.platform !== "linux") return `the runner is not on Linux (${process.platform})`;
    if (!opts.localEngine) return "the Docker engine is not local (the runner mounts each workspace image itself)";
    if (typeof process.getuid !== "function" || process.getuid() !== 0)
      return "the runner is not root (mounting a workspace image needs root)";
    for (const tool of ["mkfs.ext4", "mount", "umount"]) {
      const found = await run("sh", ["-c", `command -v ${tool}`]).then(
        () => true,
        () => false,
      );
      if (!found) return `${tool} is not installed (Debian: e2fsprogs, mount)`;
    }
    return null;
  }

  imagePath(volumeName: string): string {
    return path.join(this.dir, `${volumeName}.img`);
  }

  mountPath(volumeName: string): string {
    return path.join(this.dir, volumeName);
  }

  /** Docker local-driver options that bind the mounted image at /workspace. */
  volumeOptions(volumeName: string): Record<string, string> {
    return { type: "none", o: "bind", device: this.mountPath(volumeName) };
  }

  /** Creates the image when missing and mounts it when not mounted (after a host reboot, say). */
  async ensure(volumeName: string): Promise<void> {
    const image = this.imagePath(volumeName);
    const mountPoint = this.mountPath(volumeName);
    await mkdir(this.dir, { recursive: true, mode: 0o700 });
    await mkdir(mountPoint, { recursive: true, mode: 0o700 });
    if (await this.isMounted(mountPoint)) return;
    const fresh = !(await exists(image));
    if (fresh) {
      // Sparse: the host spends blocks only as the workspace fills them; discard (below) gives deleted ones back.
      await writeFile(image, "", { mode: 0o600 });
      await truncate(image, this.sizeBytes);
      // A 16 MiB journal instead of the default 64 MiB keeps an empty 10 GiB workspace at ~20 MiB on the host.
      const journal = this.sizeBytes >= 1024 ** 3 ? ["-J", "size=16"] : [];
      await run("mkfs.ext4", ["-F", "-q", "-m", "0", ...journal, "-E", "root_owner=1000:1000", image]);
    }
    await run("mount", ["-o", "loop,nosuid,nodev,discard", image, mountPoint]);
    // lost+found would show in every listing of /workspace; e2fsck recreates it if it is ever needed.
    if (fresh) await rmdir(path.join(mountPoint, "lost+found")).catch(() => undefined);
  }

  /** Unmounts and deletes a workspace's image and mount folder; a missing one is not an error. */
  async remove(volumeName: string): Promise<void> {
    const mountPoint = this.mountPath(volumeName);
    if (await this.isMounted(mountPoint)) await run("umount", [mountPoint]);
    await rmdir(mountPoint).catch(() => undefined);
    await rm(this.imagePath(volumeName), { force: true });
  }

  /** Volume names that have an image or a mount folder here. */
  async list(): Promise<string[]> {
    const entries = await readdir(this.dir).catch(() => [] as string[]);
    return [...new Set(entries.map((entry) => entry.replace(/\.img$/, "")))];
  }

  private async isMounted(mountPoint: string): Promise<boolean> {
    const mounts = await readFile("/proc/self/mounts", "utf8");
    // Fields are space-separated with spaces in paths written as \040.
    const encoded = mountPoint.replace(/ /g, "\\040");
    return mounts.split("\n").some((line) => line.split(" ")[1] === encoded);
  }
}

async function exists(file: string): Promise<boolean> {
  return access(file).then(
    () => true,
    () => false,
  );
}

/** "10 GiB", "64 MiB": for messages that name the limit. */
export function formatBytes(bytes: number): string {
  const units = ["B", "KiB", "MiB", "GiB", "TiB"];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${Number.isInteger(value) ? value : value.toFixed(1)} ${units[unit]}`;
}
