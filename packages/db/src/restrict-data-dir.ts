import fs from "node:fs";
import os from "node:os";
import path from "node:path";

/**
 * Makes the data dir private to the runner's user: the dir and every folder in it 0700, every file 0600
 * (the database and its WAL/SHM, run logs, keys, tokens). Files made by other tools before the runner
 * starts (`prisma migrate deploy` creates the database with the umask's 0644) are fixed here, at start.
 * Symlinks are left alone: chmod would follow them out of the data dir. A data dir set by mistake to the
 * home or root folder is not swept (BERTH_DATA_DIR is meant to be a folder of Berth's own).
 */
export function restrictDataDir(dataDir: string): void {
  const dir = path.resolve(dataDir);
  if (dir === path.parse(dir).root || dir === os.homedir()) return;
  restrictTree(dir);
}

function restrictTree(dataDir: string, device = fs.statSync(dataDir).dev): void {
  fs.chmodSync(dataDir, 0o700);
  for (const entry of fs.readdirSync(dataDir, { withFileTypes: true })) {
    const file = path.join(dataDir, entry.name);
    // Another filesystem mounted here is a session's workspace (workspaces/<runner>/<volume>): its files are the
    // workspace user's, not ours to chmod.
    if (entry.isDirectory() && fs.statSync(file).dev !== device) continue;
    if (entry.isDirectory()) restrictTree(file, device);
    else if (entry.isFile() && (fs.statSync(file).mode & 0o777) !== 0o600) fs.chmodSync(file, 0o600);
  }
}
