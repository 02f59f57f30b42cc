import { chmodSync, lstatSync, mkdirSync, readFileSync } from "node:fs";
import type { AgentConfig } from "../config";

/**
 * Puts the agent out of reach of the code it runs (issue 14 item 2). The container starts the agent as root with
 * every capability dropped but SETUID, SETGID and SETPCAP (hardened-host-config.ts). Here it keeps real and saved
 * uid 0 and takes the workspace user's effective uid and gid, so:
 * - files it writes are the workspace user's, with that user's permission checks (symlinks, modes) as before;
 * - the kernel marks it not dumpable and a uid-1000 process matches none of its real/saved ids: ptrace,
 *   /proc/<pid>/mem, fd and environ are refused (that needs CAP_SYS_PTRACE, which nobody in the container has),
 *   and the workspace user cannot signal it;
 * - its effective capabilities are empty; the permitted ones stay, for setpriv to start workspace code (launch.ts).
 * Returns what it did, for the log; nothing when the agent is not root (a test on a host).
 */
export function separateFromWorkspace(config: AgentConfig): string | null {
  const user = config.workspaceUser;
  if (!user) return null;
  prepareStateDir(config.stateDir);
  const { setgroups, setegid, seteuid } = process;
  if (!setgroups || !setegid || !seteuid) throw new Error("this platform cannot change user ids");
  // Groups and gid first: after seteuid the agent no longer has the capability to change them.
  setgroups([user.gid]);
  setegid(user.gid);
  seteuid(user.uid);
  const status = readFileSync("/proc/self/status", "utf8");
  const field = (name: string) => new RegExp(`^${name}:\\s*(.*)$`, "m").exec(status)?.[1]?.trim() ?? "?";
  if (!/^0+$/.test(field("CapEff"))) throw new Error(`effective capabilities left after dropping: ${field("CapEff")}`);
  return `real uid 0, effective ${user.uid}:${user.gid} (Uid ${field("Uid")}; CapPrm ${field("CapPrm")}, CapEff 0)`;
}

/**
 * Background process logs live here. Made by root before the drop with mode 1733: the agent (acting as the workspace
 * user) can create and open files it names, but nobody can list the folder, and the names are secret
 * (process-manager.ts), so workspace code cannot find a log to rewrite. A folder that already exists and is not
 * root's was planted: refuse to start.
 */
function prepareStateDir(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: 0o1733 });
  const info = lstatSync(dir);
  if (!info.isDirectory() || info.uid !== 0) {
    throw new Error(`BERTH_AGENT_STATE ${dir} must be a folder owned by root (uid ${info.uid})`);
  }
  chmodSync(dir, 0o1733);
}
