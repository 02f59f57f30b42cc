import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestRunner, type TestRunner } from "../testing/runner-test-kit";

type Parked = { status: "parked"; approvalId: string; text: string; sha256: string };
type Result = { ok: boolean; output: string; details?: Record<string, unknown>; runId?: string; receiptId?: string };

let kit: TestRunner;
let session: string;
let other: string;

beforeAll(async () => {
  kit = await startTestRunner();
  session = await kit.createSession({ autonomy: "default" });
  other = await kit.createSession({ autonomy: "trusted" });
});
afterAll(async () => kit?.close());

const plan = {
  topology: "sequential",
  tasks: [
    { tool: "write_file", args: { path: "p.sh", content: "echo planned\n" } },
    { tool: "run_script", args: { interpreter: "bash", script: "p.sh" } },
    { tool: "bash", args: { command: "cat p.sh" } },
  ],
};

describe("dispatch plans and monitor", () => {
  it("parks a three-task plan once with its plan text, then runs all three after one approval", async () => {
    const parked = await kit.tool<Parked>(session, "dispatch", plan);
    expect(parked.status).toBe(202);
    expect(parked.body.text).toMatch(/^dispatch plan: topology=sequential tasks=3\n/);
    // A line per task, then the file the plan's tasks bind as it is now (the task that writes it is the plan's own).
    expect(parked.body.text.split("\n")).toHaveLength(5);
    expect(parked.body.text.split("\n")[4]).toBe("file p.sh absent");
    const pending = await kit.api<{ approvals: { id: string }[] }>("GET", "/api/approvals?status=pending");
    expect(pending.body.approvals.filter((a) => a.id === parked.body.approvalId)).toHaveLength(1);
    await kit.api("POST", `/api/approvals/${parked.body.approvalId}`, { decision: "approve", sha256: parked.body.sha256 });
    const ran = await kit.tool<Result>(session, "dispatch", plan);
    expect(ran.body, ran.body.output).toMatchObject({ ok: true, details: { succeeded: 3, failed: 0 } });
    const tasks = ran.body.details?.tasks as { runId?: string; output: string }[];
    expect(tasks[1]?.output).toMatch(/run_script succeeded/);
    // The run_script task's receipt names the plan's approval.
    const run = await kit.api<{ run: { receiptId: string } }>("GET", `/api/runs/${tasks[1]?.runId}`);
    const receipt = await kit.api<{ body: { approvals: { id: string }[] } }>("GET", `/api/receipts/${run.body.run.receiptId}`);
    expect(receipt.body.body.approvals[0]?.id).toBe(parked.body.approvalId);
  });

  it("monitor lists and waits on this session's runs and refuses another session's run by name", async () => {
    const foreign = await kit.tool<Result>(other, "bash", { command: "echo elsewhere" });
    const mine = await kit.tool<Result>(session, "bash", { command: "echo here" });
    const list = await kit.tool<Result>(session, "monitor", { mode: "list" });
    const ids = (list.body.details?.runs as { id: string }[]).map((r) => r.id);
    expect(ids).toContain(mine.body.runId);
    expect(ids).not.toContain(foreign.body.runId);
    const refused = await kit.tool<Result>(session, "monitor", { mode: "status", runId: foreign.body.runId });
    expect(refused.body.output).toBe(`monitor: run ${foreign.body.runId} belongs to another session`);
    const peek = await kit.tool<Result>(session, "monitor", { mode: "peek", runId: mine.body.runId });
    expect(peek.body.details?.stdout).toBe("here\n");
    const waited = await kit.tool<Result>(session, "monitor", { mode: "wait", runId: mine.body.runId, timeoutMs: 1000 });
    expect(waited.body.details).toMatchObject({ ended: true });
  });
});
