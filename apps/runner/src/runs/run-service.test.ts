import crypto from "node:crypto";
import { EventEmitter } from "node:events";
import path from "node:path";
import type { Repositories, UnfinishedRun } from "@berth/db";
import type { SandboxDriver } from "@berth/sandbox";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RunnerEvents } from "../events/runner-events";
import { ReceiptService } from "../receipts/receipt-service";
import { openSqliteRepos } from "../testing/sqlite-repos";
import { RunLogs, readLog } from "./run-logs";
import { RunService } from "./run-service";

// A background process's run taken up at failover (RunService.adopt/splice): real SQLite with the real migrations,
// real logs and receipts; the sandbox driver is a fake behind its interface (only its events are used).
let dataDir: string;
let repos: Repositories;
let close: () => Promise<void>;

beforeAll(async () => {
  ({ dataDir, repos, close } = await openSqliteRepos("berth-run-service-"));
  await repos.users.create({ id: "user_a", name: "a", role: "developer" });
  await repos.sessions.create({ id: "ses_a", name: "adopt", ownerId: "user_a", autonomy: "default", network: "none", env: {} });
}, 60_000);

afterAll(async () => {
  await close?.();
});

describe("RunService.adopt", () => {
  it("splices what no runner stored, then the live output held meanwhile by the agent's offsets: no gap, no duplicate; the run ends with a receipt of the whole log", async () => {
    const runId = "run_adopted";
    const startedAt = new Date();
    await repos.runs.create({ id: runId, sessionId: "ses_a", userId: "user_a", tool: "bash", kind: "process", args: { action: "start", command: "count" }, secrets: [], caller: null, startedAt });
    // What the dead runner stored.
    const first = new RunLogs(RunLogs.dirFor(dataDir, runId));
    first.append("stdout", Buffer.from("count-0\n"));
    await first.close();

    const driver = new EventEmitter();
    const events = new RunnerEvents();
    const receipts = await ReceiptService.open({ receipts: repos.receipts, runnerKeys: repos.runnerKeys, runnerId: "runner_b", dataDir: path.join(dataDir, "runner_b"), sandboxFacts: () => null, writes: repos.writes });
    const runs = new RunService({ repos, dataDir, events, driver: driver as unknown as SandboxDriver, receipts });
    const shown: { offset: number; data: string }[] = [];
    events.on("run:output", (e) => shown.push({ offset: e.offset, data: e.data }));
    const finished = new Promise<void>((resolve) => events.on("run:status", (e) => e.status === "finished" && resolve()));

    const run: UnfinishedRun = { id: runId, sessionId: "ses_a", userId: "user_a", tool: "bash", caller: null, cause: null, args: { action: "start", command: "count" }, details: { processId: "proc_1" }, startedAt, endedAt: null, actionClass: "execute" };
    runs.adopt(run, "process");
    const output = (offset: number, data: string) => driver.emit("output", { sessionId: "ses_a", processId: "proc_1", callId: runId, stream: "stdout", offset, data: Buffer.from(data) });
    // Held while the agent's log is read: one chunk the read gives too, one past it, and the process's end.
    output(8, "count-1\n");
    output(16, "count-2\n");
    driver.emit("process.status", { sessionId: "ses_a", processId: "proc_1", status: "EXITED", exitCode: 0 });
    expect(shown).toEqual([]);
    expect(await repos.runs.get(runId)).toMatchObject({ status: "running" });

    await runs.splice(runId, [{ stream: "stdout", data: Buffer.from("count-1\n") }]);
    await finished;
    await repos.writes.settled();

    const log = readLog(dataDir, runId, "stdout", 0, 1000).content;
    expect(log.toString()).toBe("count-0\ncount-1\ncount-2\n");
    expect(shown).toEqual([
      { offset: 8, data: "count-1\n" },
      { offset: 16, data: "count-2\n" },
    ]);
    const row = await repos.runs.get(runId);
    expect(row).toMatchObject({ status: "finished", outcome: "succeeded", exitCode: 0, stdoutBytes: log.length });
    const receipt = await repos.receipts.getByRun(runId);
    expect(receipt?.body.logs.find((l) => l.name === "stdout")).toEqual({ name: "stdout", sha256: crypto.createHash("sha256").update(log).digest("hex"), bytes: log.length });
  });
});

describe("RunService.setDetails", () => {
  it("stores a run's details right after its start, while its row is still written behind (a terminal's id and name)", async () => {
    const receipts = await ReceiptService.open({ receipts: repos.receipts, runnerKeys: repos.runnerKeys, runnerId: "runner_t", dataDir: path.join(dataDir, "runner_t"), sandboxFacts: () => null, writes: repos.writes });
    const runs = new RunService({ repos, dataDir, events: new RunnerEvents(), driver: new EventEmitter() as unknown as SandboxDriver, receipts });
    const runId = await runs.start({ sessionId: "ses_a", userId: "user_a", tool: "terminal", kind: "terminal", args: { name: "shell" }, actionClass: "execute", caller: "browser" });
    await runs.setDetails(runId, { terminalId: "term_1", name: "shell" });
    expect(await repos.runs.get(runId)).toMatchObject({ status: "running", details: { terminalId: "term_1", name: "shell" } });
  });
});
