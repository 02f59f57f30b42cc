import { readFile } from "node:fs/promises";

/** The container's cgroup v2 oom_kill counter, or null where there is no such file. */
export async function readOomKills(memoryEventsPath: string): Promise<number | null> {
  const text = await readFile(memoryEventsPath, "utf8").catch(() => null);
  const match = text ? /^oom_kill (\d+)$/m.exec(text) : null;
  return match ? Number(match[1]) : null;
}
