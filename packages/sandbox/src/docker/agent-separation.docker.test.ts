import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cleanupRunner, sh, testRunnerId, tool } from "../testing/docker-test-kit";
import { DockerSandboxDriver } from "./docker-sandbox-driver";

const runFile = promisify(execFile);

/**
 * The forging script of issue 14 item 2, run as workspace code: it finds the agent and, for a few seconds, tries
 * every way to reach it (ptrace, /proc/<pid>/mem, environ, fd, a signal) and to write forged JSON-RPC replies into
 * each of its fds; it reports what got through.
 */
const FORGER = String.raw`
import ctypes, errno, json, os, time
libc = ctypes.CDLL(None, use_errno=True)
agent = next(int(p) for p in os.listdir("/proc") if p.isdigit()
             and open(f"/proc/{p}/cmdline", "rb").read() == b"node\0/opt/berth/berth-agent.mjs\0")
got, denied = [], {}
def attempt(name, fn):
    try:
        fn(); got.append(name)
    except OSError as e:
        denied[name] = errno.errorcode.get(e.errno, str(e.errno))
def ptrace():
    if libc.ptrace(16, agent, None, None) != 0:  # PTRACE_ATTACH
        raise OSError(ctypes.get_errno(), "ptrace")
def read(path):
    with open(path, "rb") as f: f.read(64)
def seize_mem():
    with open(f"/proc/{agent}/mem", "rb") as f:
        f.seek(0x400000); f.read(16)
forged = lambda i: (json.dumps({"jsonrpc": "2.0", "id": i, "result": {"ok": True, "output": "FORGED-BY-WORKSPACE"}}) + "\n").encode()
def write_fd(fd):
    def go():
        with open(f"/proc/{agent}/fd/{fd}", "wb", buffering=0) as f:
            for i in range(1, 200): f.write(forged(i))
    return go
open("/workspace/forger.ready", "w").close()
deadline = time.time() + 6
while time.time() < deadline:
    attempt("ptrace", ptrace)
    attempt("mem", seize_mem)
    attempt("environ", lambda: read(f"/proc/{agent}/environ"))
    attempt("fd-list", lambda: os.listdir(f"/proc/{agent}/fd"))
    attempt("signal", lambda: os.kill(agent, 0))
    for fd in range(0, 24): attempt(f"fd-{fd}", write_fd(fd))
    time.sleep(0.05)
with open("/workspace/forger.json", "w") as f:
    json.dump({"agent": agent, "got": sorted(set(got)), "denied": denied}, f)
`;

describe("the agent out of reach of workspace code (real engine)", () => {
  const runnerId = testRunnerId("separation");
  const sid = "separation";
  let driver: DockerSandboxDriver;
  let containerId: string;

  beforeAll(async () => {
    driver = new DockerSandboxDriver({ runnerId, poolSize: 0, heartbeatIntervalMs: 0 });
    await driver.start();
    containerId = (await driver.acquire(sid)).containerId ?? "";
  });

  afterAll(async () => {
    await driver?.close({ stopSessions: true });
    await cleanupRunner(runnerId);
  });

  it("runs workspace code as uid 1000 with every capability set empty, the agent as real uid 0", async () => {
    const r = await sh(
      driver,
      sid,
      `id -u; id -g; grep -E '^Cap(Inh|Prm|Eff|Bnd|Amb)' /proc/self/status | awk '{print $2}' | sort -u
       a=$(pgrep -xf 'node /opt/berth/berth-agent.mjs'); grep '^Uid' /proc/$a/status; stat -c %u /proc/$a/fd`,
    );
    const [uid, gid, caps, agentUids, agentProcOwner] = r.stdout.trim().split("\n");
    expect([uid, gid]).toEqual(["1000", "1000"]);
    expect(caps).toBe("0000000000000000");
    // real, effective, saved, filesystem: the saved and real root are what keep workspace code out.
    expect(agentUids?.split(/\s+/).slice(1)).toEqual(["0", "1000", "0", "1000"]);
    // Not dumpable: the kernel gives its /proc entries to root although it works as uid 1000.
    expect(agentProcOwner).toBe("0");
    expect(driver.posture(sid)).toMatchObject({ user: "0:0", workspaceUser: "1000:1000", workspaceCapabilities: [] });
  });

  it("gets nothing of a forging background script through: later calls return the true results", async () => {
    await tool(driver, sid, "write_file", { path: "truth.txt", content: "the true content\n" });
    await tool(driver, sid, "write_file", { path: "forge.py", content: FORGER });
    const started = await tool(driver, sid, "bash", { action: "start", command: "python3 forge.py" });
    expect(started.ok).toBe(true);
    await expect.poll(async () => (await sh(driver, sid, "ls forger.ready")).exitCode, { timeout: 10_000 }).toBe(0);

    for (let i = 0; i < 3; i++) {
      const r = await sh(driver, sid, "echo ok");
      expect(r).toMatchObject({ exitCode: 0, stdout: "ok\n" });
    }
    const read = await tool(driver, sid, "read_file", { path: "truth.txt" });
    expect(read.ok).toBe(true);
    expect(read.output).toContain("the true content");
    expect(read.output).not.toContain("FORGED");

    await expect.poll(async () => (await sh(driver, sid, "cat forger.json")).exitCode, { timeout: 15_000 }).toBe(0);
    const report = JSON.parse((await sh(driver, sid, "cat forger.json")).stdout) as {
      got: string[];
      denied: Record<string, string>;
    };
    expect(report.got).toEqual([]);
    expect(report.denied).toMatchObject({ ptrace: "EPERM", mem: "EACCES", environ: "EACCES", "fd-list": "EACCES" });
    expect(report.denied.signal).toBe("EPERM");
    expect(report.denied["fd-1"]).toBe("EACCES");
  }, 60_000);

  it("gives a started process only its own stdio, not the agent's channel", async () => {
    const started = await tool(driver, sid, "bash", { action: "start", command: "exec sleep 30" });
    const pid = (started.details as { pid: number }).pid;
    await expect
      .poll(async () => (await sh(driver, sid, `readlink /proc/${pid}/exe`)).stdout.trim())
      .toBe("/usr/bin/sleep");
    const r = await sh(driver, sid, `ls /proc/${pid}/fd | sort -n | paste -sd ' '`);
    expect(r.stdout.trim()).toBe("0 1 2");
    // The agent's end of the runner's channel is a pipe only it holds: seen from the host (root with CAP_SYS_PTRACE).
    const { stdout: initPid } = await runFile("docker", ["inspect", "-f", "{{.State.Pid}}", containerId]);
    const { stdout: tree } = await runFile("sh", ["-c", `cat /proc/${initPid.trim()}/task/*/children`]);
    const agentHostPid = tree.trim().split(/\s+/)[0];
    const { stdout: agentFds } = await runFile("sh", [
      "-c",
      `ls -l /proc/${agentHostPid}/fd/0 /proc/${agentHostPid}/fd/1 | sed 's/.*-> //'`,
    ]);
    const { stdout: hostPidOfSleep } = await runFile("sh", ["-c", `pgrep -f '^sleep 30$' | head -50`]);
    const sleepFds = (
      await Promise.all(
        hostPidOfSleep
          .trim()
          .split("\n")
          .map((p) =>
            runFile("sh", ["-c", `ls -l /proc/${p}/fd/ | sed -n 's/.*-> //p'`]).then(
              (o) => o.stdout,
              () => "",
            ),
          ),
      )
    ).join("\n");
    for (const channel of agentFds.trim().split("\n")) expect(sleepFds).not.toContain(channel);
    await tool(driver, sid, "bash", {
      action: "stop",
      processId: (started.details as { processId: string }).processId,
    });
  });

  it("keeps files written by write_file and apply_patch owned by and editable for uid 1000", async () => {
    await tool(driver, sid, "write_file", { path: "dir/a.txt", content: "one\n" });
    const patch = await tool(driver, sid, "apply_patch", {
      patch:
        "*** Begin Patch\n*** Add File: dir/b.txt\n+bee\n*** Update File: dir/a.txt\n@@\n-one\n+uno\n*** End Patch\n",
    });
    expect(patch.ok).toBe(true);
    const r = await sh(
      driver,
      sid,
      "stat -c '%u:%g %n' dir dir/a.txt dir/b.txt && echo dos >> dir/a.txt && cat dir/a.txt && rm dir/b.txt",
    );
    expect(r.stdout).toBe("1000:1000 dir\n1000:1000 dir/a.txt\n1000:1000 dir/b.txt\nuno\ndos\n");
  });

  it("searches with ripgrep as the agent without capabilities, still reading the workspace user's private files", async () => {
    await tool(driver, sid, "write_file", { path: "private/notes.txt", content: "needle in a private file\n" });
    await sh(driver, sid, "chmod 600 private/notes.txt && chmod 700 private");
    const found = await tool(driver, sid, "grep", { pattern: "needle" });
    expect(found.ok).toBe(true);
    expect(found.output).toContain("private/notes.txt");
  });

  it("cannot change the agent's own file", async () => {
    const r = await sh(
      driver,
      sid,
      "stat -c '%u %a' /opt/berth/berth-agent.mjs; test -w /opt/berth/berth-agent.mjs && echo writable || echo read-only",
    );
    expect(r.stdout).toBe("0 644\nread-only\n");
  });
});
