import { mkdir, readFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { BackgroundProcessInfo, BashExecDetails, BashLogsDetails } from "@berth/protocol";
import { createToolHarness, detailsOf, errorOf, type ToolHarness } from "../test-support/tool-harness";
import { HeadTailBuffer } from "./head-tail-buffer";
import { groupMembers, sleep } from "./process-group";

let h: ToolHarness;
beforeEach(async () => {
  h = await createToolHarness();
});
afterEach(() => h.cleanup());

const exec = async (args: Record<string, unknown>, options?: Parameters<ToolHarness["call"]>[2]) => {
  const result = await h.call("bash", { action: "exec", ...args }, options);
  return { result, details: result.details as unknown as BashExecDetails };
};

/** Running means present in /proc and not a zombie waiting for its reaper. */
const isRunning = async (pid: number) => {
  const stat = await readFile(`/proc/${pid}/stat`, "utf8").catch(() => "");
  return stat !== "" && stat.slice(stat.lastIndexOf(")") + 2)[0] !== "Z";
};

const waitFor = async (check: () => Promise<boolean>, ms = 5000) => {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (await check()) return;
    await sleep(20);
  }
  throw new Error("condition not met in time");
};

describe("bash exec", () => {
  it("runs in the workspace with stdin closed and reports exit code and streams", async () => {
    await mkdir(path.join(h.root, "sub"));
    const { result, details } = await exec({ command: "cat; pwd; echo oops >&2; exit 3", cwd: "sub" });
    expect(result.ok).toBe(true);
    expect(details).toMatchObject({ exitCode: 3, stdout: `${h.root}/sub\n`, stderr: "oops\n", timedOut: false });
    expect(details.durationMs).toBeGreaterThanOrEqual(0);
  });

  it("gives a clean environment plus the session env, never the agent's", async () => {
    process.env.BERTH_SECRET_FOR_TEST = "leak";
    try {
      const { details } = await exec({ command: "env | sort" }, { env: { SESSION_VAR: "yes" } });
      const keys = details.stdout
        .split("\n")
        .filter(Boolean)
        .map((l) => l.split("=")[0]);
      expect(keys.filter((k) => !["PWD", "SHLVL", "_", "OLDPWD"].includes(k as string)).sort()).toEqual([
        "HOME",
        "LANG",
        "PATH",
        "SESSION_VAR",
        "TERM",
      ]);
    } finally {
      delete process.env.BERTH_SECRET_FOR_TEST;
    }
  });

  it("streams live output as notifications with byte offsets", async () => {
    await exec({ command: "printf abc; sleep 0.05; printf def" }, { callId: "live-1" });
    const chunks = h.notifications.filter((n) => n.method === "output" && n.params.callId === "live-1");
    expect(Buffer.concat(chunks.map((c) => c.params.data as Buffer)).toString()).toBe("abcdef");
    expect(chunks[0]?.params).toMatchObject({ stream: "stdout", offset: 0 });
    expect(chunks.at(-1)?.params.offset).toBe(chunks.length > 1 ? 3 : 0);
  });

  it("kills the whole process group on timeout, exitCode -1 with a hint to use start", async () => {
    const started = Date.now();
    const { result, details } = await exec({ command: "sleep 30 & echo $! > child.pid; sleep 30", timeoutMs: 300 });
    expect(Date.now() - started).toBeLessThan(5000);
    expect(result.ok).toBe(false);
    expect(result.error?.code).toBe("timeout");
    expect(details).toMatchObject({ exitCode: -1, timedOut: true });
    expect(details.stderr).toMatch(/timed out after 300 ms.*action="start"/);
    const childPid = Number(await readFile(path.join(h.root, "child.pid"), "utf8"));
    await waitFor(async () => !(await isRunning(childPid)));
  });

  it("escalates to SIGKILL when the command ignores SIGTERM", async () => {
    const started = Date.now();
    const { details } = await exec({ command: "trap '' TERM; sleep 30", timeoutMs: 200 });
    expect(details.timedOut).toBe(true);
    expect(Date.now() - started).toBeGreaterThanOrEqual(1100);
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it("is aborted by the signal and says so", async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);
    const { result } = await exec({ command: "sleep 30" }, { signal: controller.signal });
    expect(result.ok).toBe(false);
    expect(result.error?.code).toBe("aborted");
  });

  it("caps each stream at 10 MiB keeping head and tail", async () => {
    const { details, result } = await exec({ command: "head -c 12582912 /dev/zero | tr '\\0' a; echo END" });
    expect(details.stdout.startsWith("aaaa")).toBe(true);
    expect(details.stdout.endsWith("aEND\n")).toBe(true);
    expect(details.stdout).toContain(`[... ${12582912 + 4 - 10 * 1024 * 1024} bytes truncated ...]`);
    expect(result.trace?.stdoutBytes).toBe(12582916);
  });

  it("refuses bad arguments before running anything", async () => {
    expect(errorOf(await h.call("bash", { command: "touch x", timeoutMs: 600001 }))).toMatch(
      /timeoutMs: must be at most 600000/,
    );
    expect(errorOf(await h.call("bash", { action: "exec" }))).toBe("command: required for action=exec");
    expect(errorOf(await h.call("bash", { action: "fly" }))).toBe("Unsupported bash action: fly");
    expect(errorOf(await h.call("bash", { command: "true", cwd: "../" }))).toBe("Path escapes workspace root: ../");
    expect(errorOf(await h.call("bash", { command: "true", cwd: "nope" }))).toBe("Directory not found: nope");
    expect(errorOf(await h.call("bash", { command: "echo a\0b" }))).toMatch(/command: must not contain NUL bytes/);
  });
});

describe("HeadTailBuffer", () => {
  it("keeps everything under the cap and head+tail over it", () => {
    const small = new HeadTailBuffer(4, 4);
    small.push(Buffer.from("abcdefgh"));
    expect(small.toString()).toBe("abcdefgh");
    const big = new HeadTailBuffer(2, 3);
    for (const part of ["ab", "cd", "ef", "gh"]) big.push(Buffer.from(part));
    expect(big.toString()).toBe("ab\n[... 3 bytes truncated ...]\nfgh");
  });
});

describe("bash background processes", () => {
  const start = async (command: string) =>
    detailsOf<{ processId: string; status: string }>(await h.call("bash", { action: "start", command }));

  it("starts with a proc_ id, lists, reports status and exit", async () => {
    const a = await start("echo one; sleep 0.1; echo two >&2; exit 4");
    expect(a.processId).toMatch(/^proc_[0-9a-f]{32}$/);
    expect(a.status).toBe("RUNNING");
    const b = await start("sleep 30");
    await waitFor(
      async () =>
        detailsOf<BackgroundProcessInfo>(await h.call("bash", { action: "status", processId: a.processId })).status ===
        "EXITED",
    );
    const status = detailsOf<BackgroundProcessInfo>(await h.call("bash", { action: "status", processId: a.processId }));
    expect(status).toMatchObject({
      exitCode: 4,
      status: "EXITED",
      command: "echo one; sleep 0.1; echo two >&2; exit 4",
      cwd: ".",
    });
    expect(status.endedAt).not.toBeNull();
    const list = detailsOf<{ processes: BackgroundProcessInfo[] }>(await h.call("bash", { action: "list" }));
    expect(list.processes.map((p) => p.processId)).toEqual([a.processId, b.processId]);
    const statuses = h.notifications
      .filter((n) => n.method === "process.status" && n.params.processId === a.processId)
      .map((n) => n.params);
    expect(statuses).toEqual([
      { processId: a.processId, status: "RUNNING", exitCode: null },
      { processId: a.processId, status: "EXITED", exitCode: 4 },
    ]);
  });

  it("stores the full log with stream prefixes, readable at any offset", async () => {
    const { processId } = await start("for i in $(seq 1 3000); do echo line-$i; done; echo err >&2");
    await waitFor(
      async () => detailsOf<BashLogsDetails>(await h.call("bash", { action: "logs", processId })).status === "EXITED",
    );
    const first = detailsOf<BashLogsDetails>(await h.call("bash", { action: "logs", processId, limit: 100 }));
    expect(first.content.startsWith("[stdout] line-1\n[stdout] line-2\n")).toBe(true);
    expect(first).toMatchObject({ offset: 0, nextOffset: 100, truncated: true });
    const again = detailsOf<BashLogsDetails>(
      await h.call("bash", { action: "logs", processId, offset: first.nextOffset, limit: 100 }),
    );
    expect(again.offset).toBe(100);
    const all = detailsOf<BashLogsDetails>(await h.call("bash", { action: "logs", processId, limit: 1_000_000 }));
    expect(all.content.split("\n").filter(Boolean)).toHaveLength(3001);
    expect(all.content.endsWith("[stderr] err\n")).toBe(true);
    expect(all.truncated).toBe(false);
    const tail = detailsOf<BashLogsDetails>(await h.call("bash", { action: "logs", processId, offset: -13 }));
    expect(tail.content).toBe("[stderr] err\n");
    // live output notifications for the process too
    expect(h.notifications.some((n) => n.method === "output" && n.params.processId === processId)).toBe(true);
  });

  it("writes to stdin, closes it, and stops the whole group", async () => {
    const { processId } = await start("read name; echo hello $name; cat; sleep 30 & wait");
    expect(detailsOf(await h.call("bash", { action: "write", processId, input: "ada\n" }))).toEqual({
      bytesWritten: 4,
    });
    await h.call("bash", { action: "write", processId, closeStdin: true });
    await waitFor(async () =>
      detailsOf<BashLogsDetails>(await h.call("bash", { action: "logs", processId })).content.includes("hello ada"),
    );
    const status = detailsOf<BackgroundProcessInfo>(await h.call("bash", { action: "stop", processId }));
    expect(status.status).toBe("STOPPED");
    // Zombies awaiting their reaper do not count: nothing of the group still runs.
    expect(await groupMembers(status.pid as number)).toEqual([]);
    expect(errorOf(await h.call("bash", { action: "write", processId, input: "x" }))).toBe(
      `Process is not running: ${processId}`,
    );
  });

  it("refuses unknown ids and more than 16 running", async () => {
    expect(errorOf(await h.call("bash", { action: "status", processId: "proc_nope" }))).toBe(
      "Unknown processId: proc_nope",
    );
    expect(errorOf(await h.call("bash", { action: "logs" }))).toBe("processId: required for this action");
    for (let i = 0; i < 16; i++) await start("sleep 30");
    expect(errorOf(await h.call("bash", { action: "start", command: "sleep 30" }))).toBe(
      "Too many running processes: 16 running (limit 16). Stop one with action=stop first.",
    );
  });
});

describe("background output attribution", () => {
  it("carries the start call's id with every chunk, so output before the start result is not orphaned", async () => {
    const started = detailsOf<{ processId: string }>(await h.call("bash", { action: "start", command: "echo first" }, { callId: "start-call-1" }));
    await waitFor(async () => h.notifications.some((n) => n.method === "output" && n.params.processId === started.processId));
    const chunks = h.notifications.filter((n) => n.method === "output" && n.params.processId === started.processId);
    expect(chunks.every((n) => n.params.callId === "start-call-1")).toBe(true);
  });
});
