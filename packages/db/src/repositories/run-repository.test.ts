import { describe, expect, it } from "vitest";
import { seedSessions, useTestRepositories } from "./testing/open-test-repositories";

const t = useTestRepositories(async (repos) => {
  await seedSessions(repos, { ses_a: "user_a", ses_b: "user_b" });
});

const start = (id: string, sessionId: string, startedAt: Date, args: unknown = { command: "ls" }, kind = "bash") =>
  t.repos.runs.create({
    id,
    sessionId,
    userId: "user_a",
    tool: "bash",
    kind,
    args,
    secrets: ["hunter22"],
    caller: "api",
    startedAt,
  });

describe("RunRepository", () => {
  it("stores args redacted (a secret-looking key and a known secret value) and returns the view with them parsed", async () => {
    await start("run_1", "ses_a", new Date("2026-01-01T00:00:00Z"), {
      command: "echo hunter22",
      env: { API_TOKEN: "abc" },
    });
    const run = await t.repos.runs.get("run_1");
    expect(run).toMatchObject({
      id: "run_1",
      status: "running",
      outcome: null,
      receiptId: null,
      details: {},
      startedAt: "2026-01-01T00:00:00.000Z",
    });
    expect(JSON.stringify(run?.args)).not.toContain("hunter22");
    expect(JSON.stringify(run?.args)).not.toContain("abc");
  });

  it("finishes a run with its details and log sizes, and counts runs by outcome", async () => {
    await t.repos.runs.setDetails("run_1", { processId: "p1" });
    expect((await t.repos.runs.get("run_1"))?.details).toEqual({ processId: "p1" });
    const endedAt = new Date("2026-01-01T00:00:02Z");
    await t.repos.runs.finish("run_1", {
      status: "finished",
      outcome: "succeeded",
      cause: null,
      exitCode: 0,
      details: { exitCode: 0 },
      stdoutBytes: 5,
      stderrBytes: 0,
      endedAt,
      durationMs: 2000,
    });
    expect(await t.repos.runs.get("run_1")).toMatchObject({
      status: "finished",
      outcome: "succeeded",
      exitCode: 0,
      details: { exitCode: 0 },
      stdoutBytes: 5,
      endedAt: endedAt.toISOString(),
      durationMs: 2000,
    });
    await start("run_2", "ses_a", new Date("2026-01-01T00:01:00Z"));
    expect(await t.repos.runs.countByOutcome()).toEqual({ succeeded: 1, running: 1 });
  });

  it("lists newest first with filters, and by owner only that owner's sessions' runs", async () => {
    await start("run_3", "ses_b", new Date("2026-01-01T00:02:00Z"));
    expect((await t.repos.runs.list({ limit: 10 })).map((r) => r.id)).toEqual(["run_3", "run_2", "run_1"]);
    expect((await t.repos.runs.list({ ownerId: "user_b", limit: 10 })).map((r) => r.id)).toEqual(["run_3"]);
    expect(
      (await t.repos.runs.list({ status: "running", before: new Date("2026-01-01T00:02:00Z"), limit: 10 })).map(
        (r) => r.id,
      ),
    ).toEqual(["run_2"]);
    expect((await t.repos.runs.list({ outcome: "succeeded", sessionId: "ses_a", limit: 1 })).map((r) => r.id)).toEqual([
      "run_1",
    ]);
    expect(await t.repos.runs.getWithOwner("run_3")).toMatchObject({ ownerId: "user_b", run: { id: "run_3" } });
    expect(await t.repos.runs.ownerOf("run_1")).toBe("user_a");
    expect(await t.repos.runs.getWithOwner("run_none")).toBeNull();
  });

  it("finds a background process's run by its process id", async () => {
    await start("run_p", "ses_a", new Date("2026-01-01T00:03:00Z"), { action: "start" }, "process");
    await t.repos.runs.setDetails("run_p", { processId: "proc_42" });
    expect((await t.repos.runs.findProcessRun("ses_a", "proc_42"))?.id).toBe("run_p");
    expect(await t.repos.runs.findProcessRun("ses_b", "proc_42")).toBeNull();
  });

  it("gives a cause only to aborted runs without one", async () => {
    const end = {
      status: "finished" as const,
      exitCode: null,
      details: {},
      stdoutBytes: 0,
      stderrBytes: 0,
      endedAt: new Date(),
      durationMs: 1,
    };
    await t.repos.runs.finish("run_2", { ...end, outcome: "aborted", cause: null });
    await t.repos.runs.finish("run_3", { ...end, outcome: "aborted", cause: "by ada" });
    await t.repos.runs.explainAborted(["run_2", "run_3"], "sandbox_stopped: the container stopped (exited)");
    expect((await t.repos.runs.get("run_2"))?.cause).toBe("sandbox_stopped: the container stopped (exited)");
    expect((await t.repos.runs.get("run_3"))?.cause).toBe("by ada");
  });

  it("hands recovery the in-flight runs with their tool call's action class, reading a broken row leniently", async () => {
    await t.db.toolCall.create({
      data: {
        id: "call_p",
        sessionId: "ses_a",
        userId: "user_a",
        caller: "api",
        tool: "bash",
        argsSha256: "x",
        actionClass: "execute",
        verdict: "allow",
        runId: "run_p",
      },
    });
    await t.db.run.update({ where: { id: "run_p" }, data: { argsJson: "not json" } });
    const [inFlight] = await t.repos.runs.listInFlight();
    expect(inFlight).toMatchObject({
      id: "run_p",
      actionClass: "execute",
      args: {},
      details: { processId: "proc_42" },
    });
    await t.repos.runs.markInterrupted("run_p", {
      cause: "runner_restart",
      endedAt: new Date(),
      durationMs: 3,
      stdoutBytes: 1,
      stderrBytes: 2,
    });
    expect(await t.repos.runs.listInFlight()).toEqual([]);
    expect((await t.repos.runs.listUnsealedInterrupted()).map((r) => r.id)).toEqual(["run_p"]);
    await expect(t.repos.runs.get("run_p")).rejects.toThrow(/run\.argsJson: stored text is not JSON/);
  });

  it("writes a run's row and its end as Prisma's create and update write them (SQLite's direct path), and refuses the end of a run that is not there", async () => {
    const startedAt = new Date("2026-02-03T04:05:06.789Z");
    const endedAt = new Date("2026-02-03T04:05:07.001Z");
    const end = { status: "finished", outcome: "failed", cause: "exit 3", exitCode: 3, stdoutBytes: 11, stderrBytes: 7, endedAt, durationMs: 212 } as const;
    await start("run_direct", "ses_b", startedAt, { command: "false" }, "run_script");
    await t.repos.runs.finish("run_direct", { ...end, details: { exitCode: 3 } });
    await t.db.run.create({ data: { id: "run_prisma", sessionId: "ses_b", userId: "user_a", tool: "bash", kind: "run_script", status: "running", argsJson: JSON.stringify({ command: "false" }), caller: "api", startedAt } });
    await t.db.run.update({ where: { id: "run_prisma" }, data: { ...end, detailsJson: JSON.stringify({ exitCode: 3 }) } });
    const [direct, prisma] = await Promise.all([t.db.run.findUnique({ where: { id: "run_direct" } }), t.db.run.findUnique({ where: { id: "run_prisma" } })]);
    expect({ ...direct, id: "" }).toEqual({ ...prisma, id: "" });
    await expect(t.repos.runs.finish("run_missing", { ...end, details: {} })).rejects.toThrow(/run_missing|not found|No record/i);
  });

  it("pages through the runs that ended before a time, oldest first, leaving running runs and later ends out", async () => {
    const end = (endedAt: string) => ({ status: "finished", outcome: "succeeded", cause: null, exitCode: 0, details: {}, stdoutBytes: 1, stderrBytes: 0, endedAt: new Date(endedAt), durationMs: 1 }) as const;
    for (const [id, endedAt] of [["run_old_b", "2025-01-02T00:00:00Z"], ["run_old_a", "2025-01-02T00:00:00Z"], ["run_old_c", "2025-01-01T00:00:00Z"], ["run_recent", "2025-06-01T00:00:00Z"]] as const) {
      await start(id, "ses_a", new Date("2024-12-31T00:00:00Z"));
      await t.repos.runs.finish(id, end(endedAt));
    }
    await start("run_old_running", "ses_a", new Date("2024-12-30T00:00:00Z"));
    const before = new Date("2025-03-01T00:00:00Z");
    const first = await t.repos.runs.endedBefore(before, { limit: 2 });
    expect(first.map((r) => r.id)).toEqual(["run_old_c", "run_old_a"]);
    const second = await t.repos.runs.endedBefore(before, { limit: 2, after: first[1] });
    expect(second).toEqual([{ id: "run_old_b", endedAt: new Date("2025-01-02T00:00:00Z") }]);
    expect(await t.repos.runs.endedBefore(before, { limit: 2, after: second[0] })).toEqual([]);
  });
});
