import { execFileSync } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestRunner, type TestRunner } from "../testing/runner-test-kit";

type Result = { ok: boolean; runId?: string; details?: Record<string, unknown> };
type RunRow = { status: string; outcome: string | null; cause: string | null; receiptId: string | null };
let kit: TestRunner;

beforeAll(async () => {
  kit = await startTestRunner({ runnerId: `stopped-${process.pid}` });
});
afterAll(async () => kit?.close());

async function endedRun(runId: string): Promise<RunRow> {
  for (let i = 0; i < 150; i++) {
    const { body } = await kit.api<{ run: RunRow }>("GET", `/api/runs/${runId}`);
    // The cause lands once the runner has seen the container's end, just after the agent stopped the process.
    if (body.run.status !== "running" && body.run.cause) return body.run;
    await new Promise((r) => setTimeout(r, 100));
  }
  return (await kit.api<{ run: RunRow }>("GET", `/api/runs/${runId}`)).body.run;
}

describe("a background run whose sandbox stops under it", () => {
  it("ends with the sandbox's cause and a sealed receipt when its container is stopped with docker stop", async () => {
    const session = await kit.createSession();
    const started = await kit.tool<Result>(session, "bash", { action: "start", command: "while true; do echo alive; sleep 0.1; done" });
    expect(started.body.ok).toBe(true);
    const container = execFileSync("docker", ["ps", "-q", "--filter", `label=berth.session=${session}`], { encoding: "utf8" }).trim();
    expect(container).not.toBe("");
    execFileSync("docker", ["stop", container]);
    const run = await endedRun(started.body.runId!);
    expect(run.status).not.toBe("running");
    expect(["aborted", "interrupted"]).toContain(run.outcome);
    expect(run.cause).toBe("sandbox_stopped: the container stopped (exited)");
    expect(run.receiptId).toEqual(expect.any(String));
    const receipt = await kit.api("GET", `/api/receipts/${run.receiptId}`);
    const verdict = await kit.api<{ valid: boolean }>("POST", "/api/receipts/verify", { receipt: receipt.body });
    expect(verdict.body.valid).toBe(true);
    const session_ = await kit.api<{ status: string; terminationCause: string | null }>("GET", `/api/sessions/${session}`);
    expect(session_.body).toMatchObject({ status: "stopped", terminationCause: "exited" });
  });

  it("a process stopped on purpose in a live sandbox still ends aborted with no cause", async () => {
    const session = await kit.createSession();
    const started = await kit.tool<Result>(session, "bash", { action: "start", command: "sleep 60" });
    const stopped = await kit.tool<Result>(session, "bash", { action: "stop", processId: started.body.details?.processId });
    expect(stopped.body.ok).toBe(true);
    let run: RunRow | undefined;
    for (let i = 0; i < 50 && (!run || run.status === "running"); i++) {
      await new Promise((r) => setTimeout(r, 100));
      run = (await kit.api<{ run: RunRow }>("GET", `/api/runs/${started.body.runId}`)).body.run;
    }
    expect(run).toMatchObject({ status: "finished", outcome: "aborted", cause: null });
    expect(run?.receiptId).toEqual(expect.any(String));
  });
});
