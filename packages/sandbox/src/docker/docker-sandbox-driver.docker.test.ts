import { execFile } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import type { SandboxOomEvent, SandboxTermination } from "@berth/protocol";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SandboxError } from "../errors";
import {
  cleanupRunner,
  docker,
  dockerPsNames,
  dockerVolumeNames,
  sh,
  testRunnerId,
  tool,
} from "../testing/docker-test-kit";
import { DockerSandboxDriver } from "./docker-sandbox-driver";
import { containerNameFor } from "./sandbox-labels";

const runFile = promisify(execFile);
const here = path.dirname(fileURLToPath(import.meta.url));

function nextTermination(
  driver: DockerSandboxDriver,
  sessionId: string,
  timeoutMs = 15_000,
): Promise<SandboxTermination> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`no termination of ${sessionId} within ${timeoutMs} ms`)),
      timeoutMs,
    );
    const onTerminated = (t: SandboxTermination) => {
      if (t.sessionId !== sessionId) return;
      clearTimeout(timer);
      driver.off("terminated", onTerminated);
      resolve(t);
    };
    driver.on("terminated", onTerminated);
  });
}

describe("DockerSandboxDriver (real engine)", () => {
  const runnerId = testRunnerId("driver");
  let driver: DockerSandboxDriver;

  beforeAll(async () => {
    driver = new DockerSandboxDriver({ runnerId, poolSize: 2, heartbeatIntervalMs: 0 });
    await driver.start();
    await driver.whenPoolFull();
  });

  afterAll(async () => {
    await driver?.close({ stopSessions: true });
    await cleanupRunner(runnerId);
  });

  it("hands out a warm, handshaken sandbox at once and names its container after the session", async () => {
    const started = performance.now();
    const info = await driver.acquire("warm-1");
    expect(performance.now() - started).toBeLessThan(200);
    expect(info.status).toBe("ready");
    expect(info.agentVersion).toBeTruthy();
    expect(info.volumeName).toMatch(/^berth-ws-/);
    // The rename after the session happens in the background.
    await expect
      .poll(async () => (await docker.getContainer(info.containerId ?? "").inspect()).Name)
      .toBe(`/${containerNameFor("warm-1")}`);
    await driver.destroy("warm-1");
  });

  describe("locked down", () => {
    const sid = "hardened";
    beforeAll(async () => {
      await driver.acquire(sid);
    });

    it("runs as a non-root user with no effective capabilities", async () => {
      const r = await sh(driver, sid, "id -u; grep CapEff /proc/self/status");
      const [uid, capEff] = r.stdout.trim().split("\n");
      expect(Number(uid)).not.toBe(0);
      expect(capEff).toMatch(/^CapEff:\s+0000000000000000$/);
    });

    it("has no network route and cannot connect out", async () => {
      const r = await sh(
        driver,
        sid,
        `tail -n +2 /proc/net/route | wc -l; ls /sys/class/net; python3 -c "
import socket
try:
    socket.create_connection(('1.1.1.1', 53), timeout=2); print('connected')
except OSError as e:
    print('refused', e.errno)"`,
      );
      const [routes, ...rest] = r.stdout.trim().split("\n");
      expect(Number(routes)).toBe(0);
      expect(rest).toContain("lo");
      expect(rest).not.toContain("eth0");
      expect(r.stdout).toMatch(/refused 101/); // ENETUNREACH
    });

    it("cannot write to / (read-only root), only to /workspace and the tmpfs mounts", async () => {
      const r = await sh(
        driver,
        sid,
        "touch /x 2>&1; touch /etc/x 2>&1; touch /workspace/ok /tmp/ok $HOME/ok && echo writable",
      );
      expect(r.stdout).toMatch(/touch: cannot touch '\/x': Read-only file system/);
      expect(r.stdout).toMatch(/cannot touch '\/etc\/x': Read-only file system/);
      expect(r.stdout).toContain("writable");
    });

    it("stops a fork loop at the pids limit and stays usable", async () => {
      const r = await sh(
        driver,
        sid,
        `python3 -c "
import os, time
pids = []
try:
    while len(pids) < 1000:
        pid = os.fork()
        if pid == 0:
            time.sleep(30); os._exit(0)
        pids.append(pid)
    print('unbounded', len(pids))
except OSError as e:
    print('stopped', len(pids), e.errno)
for p in pids: os.kill(p, 9)
for p in pids: os.waitpid(p, 0)
"`,
        60_000,
      );
      const match = /stopped (\d+) 11/.exec(r.stdout); // EAGAIN
      expect(match, r.stdout + r.stderr).not.toBeNull();
      expect(Number(match?.[1])).toBeLessThan(256);
      await expect(driver.ping(sid)).resolves.toMatchObject({ rssBytes: expect.any(Number) });
    });
  });

  describe("memory", () => {
    it("kills a memory hog and records oom while the sandbox survives", async () => {
      const sid = "hog";
      await driver.acquire(sid);
      const ooms: SandboxOomEvent[] = [];
      driver.on("oom", (e) => ooms.push(e));
      const r = await sh(driver, sid, `python3 -c "b = bytearray(1536 * 1024 * 1024); print('survived')"`, 60_000);
      expect(r.stdout).not.toContain("survived");
      expect(r.exitCode).toBe(137);
      await expect.poll(() => ooms.filter((e) => e.sessionId === sid).length, { timeout: 5_000 }).toBeGreaterThan(0);
      expect(driver.get(sid)?.oomKills).toBeGreaterThan(0);
      expect(driver.get(sid)?.status).toBe("ready");
      await driver.destroy(sid);
    });

    it("records cause oom when the kernel kills the agent itself", async () => {
      const sid = "agent-oom";
      await driver.acquire(sid);
      const hello = await sh(driver, sid, "pgrep -xf 'node /opt/berth/berth-agent.mjs'");
      const agentPid = hello.stdout.trim();
      const terminated = nextTermination(driver, sid, 30_000);
      // Workspace code cannot touch the agent (agent-separation.docker.test.ts): root in the container, through the
      // engine, makes the agent the OOM killer's first pick, once the hog's shell is started (children inherit it).
      const call = sh(driver, sid, `sleep 1 && python3 -c "b = bytearray(1536 * 1024 * 1024)"`, 60_000);
      const containerId = driver.get(sid)?.containerId ?? "";
      await runFile("docker", [
        "exec",
        "-u",
        "0",
        containerId,
        "sh",
        "-c",
        `echo 1000 > /proc/${agentPid}/oom_score_adj`,
      ]);
      const err = await call.catch((e: unknown) => e);
      expect(SandboxError.isSandboxError(err) && err.terminationCause).toBe("oom");
      expect(String(err)).toMatch(new RegExp(`Sandbox for session ${sid} is not running \\(cause: oom`));
      const t = await terminated;
      expect(t.cause).toBe("oom");
      expect(driver.get(sid)?.termination?.cause).toBe("oom");
      await driver.destroy(sid);
    });
  });

  describe("isolation", () => {
    it("keeps two sessions from seeing each other's files", async () => {
      await driver.acquire("iso-a");
      await driver.acquire("iso-b");
      await tool(driver, "iso-a", "write_file", { path: "secret-a.txt", content: "only a" });
      const listing = await sh(
        driver,
        "iso-b",
        "ls -A /workspace; find / -name 'secret-a.txt' -not -path '/proc/*' 2>/dev/null; echo done",
      );
      expect(listing.stdout).not.toContain("secret-a.txt");
      const read = await tool(driver, "iso-b", "read_file", { path: "secret-a.txt" });
      expect(read.ok).toBe(false);
      const own = await tool(driver, "iso-a", "read_file", { path: "secret-a.txt" });
      expect(own.ok).toBe(true);
      expect(own.output).toContain("only a");
    });

    it("refuses reads and writes through a symlink pointing to /", async () => {
      const sid = "iso-a";
      await sh(driver, sid, "ln -s / /workspace/root && ln -s /etc/passwd /workspace/passwd");
      for (const p of ["root/etc/passwd", "passwd", "/workspace/root/etc/hostname"]) {
        const read = await tool(driver, sid, "read_file", { path: p });
        expect(read.ok, `read ${p}`).toBe(false);
        expect(read.output).toMatch(/escapes workspace root/);
      }
      const write = await tool(driver, sid, "write_file", { path: "root/tmp/escaped.txt", content: "x" });
      expect(write.ok).toBe(false);
      expect(write.output).toMatch(/escapes workspace root/);
      const check = await sh(driver, sid, "test -e /tmp/escaped.txt && echo present || echo absent");
      expect(check.stdout.trim()).toBe("absent");
    });
  });

  describe("death and restart", () => {
    it("fails a call in flight within a second when the container is killed, and restart keeps the files", async () => {
      const sid = "killed";
      const info = await driver.acquire(sid);
      await tool(driver, sid, "write_file", { path: "keep.txt", content: "still here" });
      const call = sh(driver, sid, "sleep 30", 60_000);
      await new Promise((r) => setTimeout(r, 200));
      const killedAt = performance.now();
      await docker.getContainer(info.containerId ?? "").kill();
      const err = await call.catch((e: unknown) => e);
      const elapsed = performance.now() - killedAt;
      expect(elapsed).toBeLessThan(1_000);
      expect(String(err)).toMatch(
        new RegExp(`Sandbox for session ${sid} is not running \\(cause: exited, exit code 137\\)`),
      );
      expect(driver.get(sid)?.termination).toMatchObject({ cause: "exited", exitCode: 137 });

      // The next call fails at once with the same cause, without waiting for any timeout.
      const again = performance.now();
      await expect(tool(driver, sid, "read_file", { path: "keep.txt" })).rejects.toThrow(/cause: exited/);
      expect(performance.now() - again).toBeLessThan(50);

      const restarted = await driver.restart(sid);
      expect(restarted.volumeName).toBe(info.volumeName);
      expect(restarted.containerId).not.toBe(info.containerId);
      const read = await tool(driver, sid, "read_file", { path: "keep.txt" });
      expect(read.output).toContain("still here");
      await driver.destroy(sid);
    });

    it("removes the container and the workspace on destroy", async () => {
      const sid = "doomed";
      const info = await driver.acquire(sid);
      await driver.destroy(sid);
      await expect(docker.getContainer(info.containerId ?? "").inspect()).rejects.toMatchObject({ statusCode: 404 });
      await expect(docker.getVolume(info.volumeName).inspect()).rejects.toMatchObject({ statusCode: 404 });
      await expect(driver.call(sid, { tool: "read_file", args: { path: "x" }, callId: "c" })).rejects.toThrow(
        /No sandbox for session doomed/,
      );
    });

    it("gives egress only to a session that asks for it", async () => {
      const sid = "egress";
      await driver.acquire(sid, { egress: true });
      const r = await sh(driver, sid, "tail -n +2 /proc/net/route | wc -l");
      expect(Number(r.stdout.trim())).toBeGreaterThan(0);
      expect(driver.posture(sid).network).toBe("berth-egress");
      expect(driver.posture("hardened").network).toBe("none");
      await driver.destroy(sid);
    });
  });
});

describe("DockerSandboxDriver timers (real engine)", () => {
  const runnerId = testRunnerId("timers");
  let driver: DockerSandboxDriver;

  beforeAll(async () => {
    driver = new DockerSandboxDriver({
      runnerId,
      poolSize: 0,
      idleTimeoutMs: 3_000,
      heartbeatIntervalMs: 200,
      heartbeatTimeoutMs: 200,
    });
    await driver.start();
  });

  afterAll(async () => {
    await driver?.close({ stopSessions: true });
    await cleanupRunner(runnerId);
  });

  it("keeps a sandbox with a running background process past the idle timeout, and idles it once that ends", async () => {
    const sid = "busy";
    await driver.acquire(sid);
    const startedAt = Date.now();
    const started = await tool(driver, sid, "bash", { action: "start", command: "sleep 5" });
    expect(started.ok).toBe(true);
    const stopped = nextTermination(driver, sid);
    // Idle timeout is 3 s: the process keeps it up past that, then the sandbox idles out 3 s after it ends.
    await new Promise((r) => setTimeout(r, 4_500));
    expect((await driver.ping(sid)).runningProcesses).toBe(1);
    const t = await stopped;
    expect(t.cause).toBe("idle_timeout");
    expect(Date.parse(t.at) - startedAt).toBeGreaterThanOrEqual(5_000);
    await driver.destroy(sid);
  });

  it("stops an idle sandbox with cause idle_timeout and brings it back with its files", async () => {
    const sid = "idle";
    await driver.acquire(sid);
    await tool(driver, sid, "write_file", { path: "idle.txt", content: "kept" });
    const t = await nextTermination(driver, sid);
    expect(t.cause).toBe("idle_timeout");
    await expect(driver.ping(sid)).rejects.toThrow(/is not running \(cause: idle_timeout\)/);
    const info = await driver.acquire(sid);
    expect(info.status).toBe("ready");
    const read = await tool(driver, sid, "read_file", { path: "idle.txt" });
    expect(read.output).toContain("kept");
    await driver.destroy(sid);
  });

  it("kills a sandbox whose agent stops answering heartbeats (cause unresponsive)", async () => {
    const sid = "frozen";
    await driver.acquire(sid);
    const pid = (await sh(driver, sid, "pgrep -xf 'node /opt/berth/berth-agent.mjs'")).stdout.trim();
    const terminated = nextTermination(driver, sid);
    // Workspace code cannot signal the agent any more (agent-separation.docker.test.ts): root in the container does.
    const containerId = driver.get(sid)?.containerId ?? "";
    await runFile("docker", ["exec", "-u", "0", containerId, "kill", "-STOP", pid]);
    const t = await terminated;
    expect(t.cause).toBe("unresponsive");
    await driver.destroy(sid);
  });
});

describe("runner restart (real engine)", () => {
  const runnerId = testRunnerId("restart");

  afterAll(async () => {
    await cleanupRunner(runnerId);
  });

  it("adopts containers of live sessions and reaps the rest, leaving no orphan", async () => {
    // A runner process that crashes after starting two sessions and a warm pool.
    const { stdout } = await runFile(
      "npx",
      ["tsx", path.join(here, "../testing/crash-runner.ts"), runnerId, "live-1", "gone-1"],
      {
        cwd: path.resolve(here, "../.."),
        timeout: 60_000,
      },
    );
    const infos = JSON.parse(stdout.trim().split("\n").pop() ?? "[]") as Array<{
      sessionId: string;
      volumeName: string;
    }>;
    const liveVolume = infos.find((i) => i.sessionId === "live-1")?.volumeName;
    expect(liveVolume).toBeTruthy();
    const warmVolume = infos.find((i) => i.sessionId === "warm-live-1")?.volumeName;
    // two sessions, one claimed warm container, and whatever the pool refill had got to
    expect((await dockerPsNames(runnerId)).length).toBeGreaterThanOrEqual(3);

    const driver = new DockerSandboxDriver({ runnerId, poolSize: 0, heartbeatIntervalMs: 0 });
    try {
      const report = await driver.reconcile([
        { sessionId: "live-1", volumeName: liveVolume ?? "" },
        { sessionId: "warm-live-1", volumeName: warmVolume ?? "" },
      ]);
      expect(report.adopted.sort()).toEqual(["live-1", "warm-live-1"]);
      expect(report.reapedContainers.length).toBeGreaterThanOrEqual(1);
      expect(await dockerPsNames(runnerId)).toEqual(
        [containerNameFor("live-1"), containerNameFor("warm-live-1")].sort(),
      );
      expect(await dockerVolumeNames(runnerId)).toEqual([liveVolume, warmVolume].sort());

      // The adopted sandbox answers calls and still has its files.
      const read = await tool(driver, "live-1", "read_file", { path: "marker.txt" });
      expect(read.output).toContain("made by live-1");
    } finally {
      await driver.close({ stopSessions: true });
    }
  });
});
