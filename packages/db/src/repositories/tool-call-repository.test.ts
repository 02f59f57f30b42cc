import { describe, expect, it } from "vitest";
import { seedRuns, seedSessions, useTestRepositories } from "./testing/open-test-repositories";

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
