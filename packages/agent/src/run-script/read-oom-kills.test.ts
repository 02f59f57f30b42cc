import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { readOomKills } from "./read-oom-kills";

describe("readOomKills", () => {
  const dir = mkdtempSync(path.join(tmpdir(), "berth-oom-"));
  const v2 = path.join(dir, "memory.events");
  const v1 = path.join(dir, "memory.oom_control");
  writeFileSync(v2, "low 0\nhigh 0\nmax 4\noom 2\noom_kill 2\noom_group_kill 0\n");
  writeFileSync(v1, "oom_kill_disable 0\nunder_oom 0\noom_kill 3\n");

  it("reads cgroup v2 memory.events", async () => {
    expect(await readOomKills([v2, v1])).toBe(2);
  });

  it("reads cgroup v1 memory.oom_control when there is no v2 file", async () => {
    expect(await readOomKills([path.join(dir, "absent"), v1])).toBe(3);
  });

  it("is null where neither file has a counter (v1 before kernel 4.13)", async () => {
    const old = path.join(dir, "old.oom_control");
    writeFileSync(old, "oom_kill_disable 0\nunder_oom 0\n");
    expect(await readOomKills([path.join(dir, "absent"), old])).toBeNull();
  });
});
