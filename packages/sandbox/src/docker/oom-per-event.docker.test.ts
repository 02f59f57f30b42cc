import { execFile } from "node:child_process";
import { promisify } from "node:util";
import type { SandboxTermination } from "@berth/protocol";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cleanupRunner, testRunnerId, tool } from "../testing/docker-test-kit";
import { DockerSandboxDriver } from "./docker-sandbox-driver";

const runFile = promisify(execFile);
const MEMORY = 256 * 1024 * 1024;

/** Issue 14 item 12: the kill cause is read per event, on cgroup v1 (this CI machine) as on v2. */
describe("OOM kills read per event (real engine)", () => {
  const runnerId = testRunnerId("oom-event");
  let driver: DockerSandboxDriver;

  beforeAll(async () => {
    driver = new DockerSandboxDriver({
      runnerId,
      poolSize: 0,
      heartbeatIntervalMs: 0,
      limits: { memoryBytes: MEMORY },
    });
    await driver.start();
  });

  afterAll(async () => {
    await driver?.close({ stopSessions: true });
    await cleanupRunner(runnerId);
  });

  it("reports a run_script past the memory limit as oom-killed, and a later kill -9 as a plain failure", async () => {
    const sid = "oom-run";
    await driver.acquire(sid);
    await tool(driver, sid, "write_file", {
      path: "hog.py",
      content: "b = bytearray(512 * 1024 * 1024)\nprint('survived')\n",
    });
    await tool(driver, sid, "write_file", { path: "die.py", content: "import os\nos.kill(os.getpid(), 9)\n" });

    const hog = await tool(driver, sid, "run_script", { interpreter: "python3", script: "hog.py", timeoutMs: 60_000 });
    expect(hog.output).toMatch(/^run_script oom-killed: hog\.py \(exit 137, /);
    expect(hog.details).toMatchObject({ outcome: "oom-killed", oomKilled: true, signal: "SIGKILL" });

    const killed = await tool(driver, sid, "run_script", { interpreter: "python3", script: "die.py" });
    expect(killed.output).toMatch(/^run_script failed: die\.py \(exit 137, /);
    expect(killed.details).toMatchObject({ outcome: "failed", oomKilled: false, signal: "SIGKILL" });
    await driver.destroy(sid);
  }, 90_000);

  it("does not call a later kill of the agent an OOM because a process was OOM-killed before", async () => {
    const sid = "oom-then-kill";
    const info = await driver.acquire(sid);
    await tool(driver, sid, "write_file", { path: "hog.py", content: "b = bytearray(512 * 1024 * 1024)\n" });
    const hog = await tool(driver, sid, "run_script", { interpreter: "python3", script: "hog.py", timeoutMs: 60_000 });
    expect(hog.details).toMatchObject({ outcome: "oom-killed" });
    await expect.poll(() => driver.get(sid)?.oomKills ?? 0, { timeout: 5_000 }).toBeGreaterThan(0);
    // Long enough that the OOM event cannot explain what follows (OOM_EXPLAINS_MS).
    await new Promise((r) => setTimeout(r, 2_500));

    const terminated = new Promise<SandboxTermination>((resolve) => {
      driver.on("terminated", (t) => t.sessionId === sid && resolve(t));
    });
    // The operator (root in the container, through the engine) kills the agent: not the OOM killer.
    await runFile("docker", [
      "exec",
      "-u",
      "0",
      info.containerId ?? "",
      "sh",
      "-c",
      "kill -9 $(pgrep -xf 'node /opt/berth/berth-agent.mjs')",
    ]);
    const t = await terminated;
    expect(t.exitCode).toBe(137);
    expect(t.cause).toBe("exited");
    await driver.destroy(sid);
  }, 90_000);
});
