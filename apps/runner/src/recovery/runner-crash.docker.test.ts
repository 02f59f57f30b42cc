import { execFileSync } from "node:child_process";
import fs from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ChildRunner } from "../testing/child-runner";
import { RunLogs, logSize, readLog } from "../runs/run-logs";

type ToolReply = { ok: boolean; runId?: string; details?: Record<string, unknown> };
type RunReply = {
  run: {
    id: string;
    status: string;
    outcome: string | null;
    cause: string | null;
    stdoutBytes: number;
    stderrBytes: number;
    receiptId: string | null;
  };
};
type Receipt = { body: { logs: { name: string; sha256: string; bytes: number }[]; outcome: string } };

let runner: ChildRunner;
beforeAll(async () => {
  runner = await ChildRunner.create({ runnerId: `crash-${process.pid}` });
});
afterAll(async () => runner?.close());

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The command lines running in the session's container, as the host sees them. */
function containerProcesses(sessionId: string): string {
  const id = execFileSync("docker", ["ps", "-q", "--filter", `label=berth.session=${sessionId}`], {
    encoding: "utf8",
  }).trim();
  if (!id) return "";
  return execFileSync("docker", ["top", id, "-eo", "pid,args"], { encoding: "utf8" });
}

async function waitFor(what: string, check: () => Promise<boolean> | boolean, ms = 20_000): Promise<void> {
  const until = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await sleep(100);
  }
}

describe("a runner crash (SIGKILL) mid-run", () => {
  it("stops what still runs in the container, ends each run interrupted with a cause, and seals a receipt matching its stored log", async () => {
    const session = (await runner.api<{ id: string }>("POST", "/api/sessions", { autonomy: "trusted" })).body.id;
    const background = await runner.api<ToolReply>("POST", `/api/sessions/${session}/tools/bash`, {
      args: { action: "start", command: "for i in $(seq 1 100000); do echo crash-bg-$i; sleep 0.02; done" },
    });
    expect(background.status).toBe(200);
    const processId = String(background.body.details?.processId);
    const write = await runner.api<ToolReply>("POST", `/api/sessions/${session}/tools/write_file`, {
      args: { path: "crash-slow.sh", content: "i=0; while true; do echo crash-rs-$i; i=$((i+1)); sleep 0.05; done\n" },
    });
    expect(write.body.ok).toBe(true);
    // The HTTP reply waits for the script; it is never answered (the runner dies first).
    void runner
      .api("POST", `/api/sessions/${session}/tools/run_script`, {
        args: { interpreter: "bash", script: "crash-slow.sh" },
      })
      .catch(() => undefined);

    // A live follower of the background process.
    const follower = await runner.socket();
    let shown = "";
    follower.on("process:output", (event: { offset: number; data: string }) => {
      expect(event.offset).toBe(Buffer.byteLength(shown));
      shown += event.data;
    });
    const subscribed = await new Promise<{ runId: string }>((resolve, reject) =>
      follower.emit(
        "process:subscribe",
        { sessionId: session, processId, offset: 0 },
        (error: unknown, result: { runId: string }) =>
          error ? reject(new Error(JSON.stringify(error))) : resolve(result),
      ),
    );
    const backgroundRun = subscribed.runId;
    let scriptRun = "";
    await waitFor("the run_script run to print", async () => {
      const { body } = await runner.api<{ runs: { id: string; tool: string }[] }>(
        "GET",
        `/api/runs?sessionId=${session}`,
      );
      scriptRun = body.runs.find((r) => r.tool === "run_script")?.id ?? "";
      return (
        scriptRun !== "" &&
        fs.existsSync(RunLogs.pathFor(runner.dataDir, scriptRun, "stdout")) &&
        fs.statSync(RunLogs.pathFor(runner.dataDir, scriptRun, "stdout")).size > 200
      );
    });
    await waitFor("the follower to be shown output", () => shown.includes("crash-bg-20\n"));
    expect(containerProcesses(session)).toContain("crash-slow.sh");

    await runner.kill();
    const shownBeforeCrash = shown;
    await runner.start();

    for (const runId of [backgroundRun, scriptRun]) {
      const { body } = await runner.api<RunReply>("GET", `/api/runs/${runId}`);
      expect(body.run).toMatchObject({ status: "interrupted", outcome: "interrupted" });
      expect(body.run.cause).toMatch(/^runner_restart: killed in its sandbox/);
      // Byte counts and the receipt come from the logs as stored.
      const stored = fs.readFileSync(RunLogs.pathFor(runner.dataDir, runId, "stdout"));
      expect(stored.length).toBeGreaterThan(0);
      expect(body.run.stdoutBytes).toBe(stored.length);
      expect(body.run.receiptId).toBeTruthy();
      const receipt = (await runner.api<Receipt>("GET", `/api/receipts/${body.run.receiptId}`)).body;
      expect(receipt.body.outcome).toBe("interrupted");
      const sha = (await import("node:crypto")).createHash("sha256").update(stored).digest("hex");
      expect(receipt.body.logs.find((l) => l.name === "stdout")).toEqual({
        name: "stdout",
        sha256: sha,
        bytes: stored.length,
      });
      const verified = await runner.api<{ valid: boolean; reason?: string }>("POST", "/api/receipts/verify", {
        receipt,
      });
      expect(verified.body).toEqual({ valid: true });
    }

    // Nothing shown is lost, and a resubscribe from where the follower stopped gives exactly the rest.
    const combined = readLog(runner.dataDir, backgroundRun, "combined", 0, logSize(runner.dataDir, backgroundRun, "combined")).content.toString();
    expect(combined.startsWith(shownBeforeCrash)).toBe(true);
    const again = await runner.socket();
    let rest = "";
    again.on("process:output", (event: { data: string }) => (rest += event.data));
    const resumed = await new Promise<{ status: string }>((resolve, reject) =>
      again.emit(
        "process:subscribe",
        { sessionId: session, processId, offset: Buffer.byteLength(shownBeforeCrash) },
        (error: unknown, result: { status: string }) =>
          error ? reject(new Error(JSON.stringify(error))) : resolve(result),
      ),
    );
    expect(resumed.status).toBe("interrupted");
    await sleep(300);
    expect(shownBeforeCrash + rest).toBe(combined);

    // Nothing of either run keeps running unrecorded in the container, and the session still answers.
    await waitFor(
      "the killed work to be gone from the container",
      () => !/crash-slow\.sh|crash-bg-/.test(containerProcesses(session)),
      10_000,
    );
    const after = await runner.api<ToolReply>("POST", `/api/sessions/${session}/tools/bash`, {
      args: { command: "echo still-here" },
    });
    expect(String(after.body.details?.stdout)).toBe("still-here\n");
    expect(runner.output()).toContain("ended as interrupted and sealed");
  });
});
