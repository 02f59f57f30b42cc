import { describe, expect, it } from "vitest";
import { seedRuns, seedSessions, useTestRepositories } from "./testing/open-test-repositories";
import { ToolCallRepository } from "./tool-call-repository";
import { WriteBehind } from "./write-behind";

const t = useTestRepositories(async (repos) => {
  await seedSessions(repos, { ses_a: "user_a" });
  await seedRuns(repos, { run_1: "ses_a" });
});

const call = {
  sessionId: "ses_a",
  userId: "user_a",
  caller: "agent",
  via: "mcp",
  tool: "bash",
  argsSha256: "x",
  actionClass: "execute",
  verdict: "allow",
  approvalId: null,
  ok: true,
  errorCode: null,
  durationMs: 3,
};

describe("ToolCallRepository", () => {
  it("stores the args redacted and the trace as JSON, and lists a run's calls oldest first without either", async () => {
    await t.repos.toolCalls.record({
      ...call,
      id: "call_1",
      args: { command: "curl -H 'x: s3cr3tvalue'", env: { PASSWORD: "pw" } },
      secrets: ["s3cr3tvalue"],
      runId: "run_1",
      trace: { steps: 2 },
    });
    await new Promise((resolve) => setTimeout(resolve, 5));
    await t.repos.toolCalls.record({
      ...call,
      id: "call_2",
      args: {},
      secrets: [],
      runId: "run_1",
      trace: undefined,
      ok: null,
      verdict: "ask",
    });
    await t.repos.toolCalls.record({ ...call, id: "call_3", args: {}, secrets: [], runId: null, trace: undefined });
    const row = await t.db.toolCall.findUniqueOrThrow({ where: { id: "call_1" } });
    expect(row.argsJson).not.toContain("s3cr3tvalue");
    expect(row.argsJson).not.toContain('"pw"');
    expect(JSON.parse(row.traceJson!)).toEqual({ steps: 2 });
    expect((await t.db.toolCall.findUniqueOrThrow({ where: { id: "call_2" } })).traceJson).toBeNull();
    const calls = await t.repos.toolCalls.listForRun("run_1");
    expect(calls.map((c) => [c.id, c.verdict, c.ok])).toEqual([
      ["call_1", "allow", true],
      ["call_2", "ask", null],
    ]);
    expect(Object.keys(calls[0]!)).not.toContain("argsJson");
  });
});

describe("ToolCallRepository.recordLater (written behind the reply)", () => {
  it("batches rows into one write and a read of the run's calls sees them at once, in the order they were recorded, redacted", async () => {
    const args = { command: "echo s3cr3tvalue" };
    t.repos.toolCalls.recordLater({ ...call, id: "later_1", args, secrets: ["s3cr3tvalue"], runId: "run_1", trace: undefined });
    // The caller's object changing after the call ended does not change what was recorded.
    args.command = "changed";
    t.repos.toolCalls.recordLater({ ...call, id: "later_2", args: {}, secrets: [], runId: "run_1", trace: undefined, verdict: "ask", ok: null });
    expect(t.repos.writes.idle).toBe(true);
    // Not written yet: the batch waits for its timer, or for a read.
    expect(await t.db.toolCall.count({ where: { id: { in: ["later_1", "later_2"] } } })).toBe(0);
    const ids = (await t.repos.toolCalls.listForRun("run_1")).map((c) => c.id);
    expect(ids.slice(-2)).toEqual(["later_1", "later_2"]);
    const row = await t.db.toolCall.findUniqueOrThrow({ where: { id: "later_1" } });
    expect(row.argsJson).not.toContain("s3cr3tvalue");
    expect(row.argsJson).not.toContain("changed");
  });

  it("stores a batched row as a row written through Prisma is stored (booleans, nulls, numbers, the date's text)", async () => {
    const fields = { ...call, args: { path: "a.txt" }, secrets: [], runId: "run_1", trace: { steps: 1 }, ok: false, errorCode: "denied", durationMs: 7 };
    await t.repos.toolCalls.record({ ...fields, id: "same_prisma" });
    t.repos.toolCalls.recordLater({ ...fields, id: "same_batched" });
    await t.repos.writes.settled();
    const [viaPrisma, batched] = await Promise.all(["same_prisma", "same_batched"].map((id) => t.db.toolCall.findUniqueOrThrow({ where: { id } })));
    const { id: _a, createdAt: prismaAt, ...prismaRow } = viaPrisma!;
    const { id: _b, createdAt: batchedAt, ...batchedRow } = batched!;
    expect(batchedRow).toEqual(prismaRow);
    expect(batchedAt.getTime()).toBeGreaterThanOrEqual(prismaAt.getTime());
    // On SQLite (these repositories' database) the batch is written past Prisma: the same stored text.
    const stored = await t.db.$queryRawUnsafe<{ at: string; ok: number }[]>(`SELECT createdAt || '' AS at, ok FROM ToolCall WHERE id IN ('same_prisma', 'same_batched') ORDER BY id`);
    expect(stored.map((row) => [/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}\+00:00$/.test(row.at), Number(row.ok)])).toEqual([[true, 0], [true, 0]]);
  });

  it("writes a call's row only once its run's row, written behind too, has landed (the foreign key)", async () => {
    let landRun!: () => void;
    const runLanded = new Promise<void>((resolve) => (landRun = resolve));
    // The run's row is slow to land (on PostgreSQL it takes another pooled connection than the batch).
    void t.repos.writes.later(async () => {
      await runLanded;
      await seedRuns(t.repos, { run_late: "ses_a" });
    }, { after: "run_late" });
    t.repos.toolCalls.recordLater({ ...call, id: "call_of_late_run", args: {}, secrets: [], runId: "run_late", trace: undefined });
    const settled = t.repos.writes.settled();
    await new Promise((resolve) => setTimeout(resolve, 30));
    landRun();
    await settled;
    expect(await t.db.toolCall.count({ where: { id: "call_of_late_run", runId: "run_late" } })).toBe(1);
  });

  it("reads a row's hash when its batch is written, and leaves out (and reports) a row that cannot be rendered", async () => {
    const errors: unknown[] = [];
    const writes = new WriteBehind((error) => errors.push(error));
    const repo = new ToolCallRepository(t.db, writes);
    let rendered = 0;
    const fields = { ...call, args: { path: "a.txt" }, secrets: [], runId: null, trace: undefined };
    repo.recordLater({ ...fields, id: "hash_later", argsSha256: { get sha256() { return (rendered++, "rendered-when-written"); } } });
    repo.recordLater({ ...fields, id: "hash_fails", argsSha256: { get sha256(): string { throw new Error("cannot render this call"); } } });
    expect(rendered).toBe(0);
    await writes.settled();
    expect(rendered).toBe(1);
    expect((await t.db.toolCall.findUniqueOrThrow({ where: { id: "hash_later" } })).argsSha256).toBe("rendered-when-written");
    expect(await t.db.toolCall.count({ where: { id: "hash_fails" } })).toBe(0);
    expect(errors.map(String)).toEqual(["Error: cannot render this call"]);
  });

  it("writes what it holds when the writes behind are settled (as close does before it disconnects)", async () => {
    t.repos.toolCalls.recordLater({ ...call, id: "later_3", args: {}, secrets: [], runId: null, trace: undefined });
    await t.repos.writes.settled();
    expect(await t.db.toolCall.count({ where: { id: "later_3" } })).toBe(1);
  });
});
