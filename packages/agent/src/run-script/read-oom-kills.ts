import { readFile } from "node:fs/promises";

/**
 * The container's OOM kill counter: the `oom_kill` line of cgroup v2 `memory.events`, or of cgroup v1
 * `memory.oom_control` (kernel 4.13 and later), whichever exists first; null where neither has one. The same
 * counter read before and after a run tells an OOM kill during that run from any other SIGKILL.
 */
export async function readOomKills(paths: readonly string[]): Promise<number | null> {
  for (const file of paths) {
    const text = await readFile(file, "utf8").catch(() => null);
    const match = text ? /^oom_kill (\d+)$/m.exec(text) : null;
    if (match) return Number(match[1]);
  }
  return null;
}
