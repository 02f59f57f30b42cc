import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Database } from "../create-database";
import type { Repositories } from "./create-repositories";
import { openTestRepositories } from "./testing/open-test-repositories";

let repos: Repositories;
let db: Database;
let close: () => Promise<void>;

beforeAll(async () => {
  ({ repos, db, close } = await openTestRepositories());
  await repos.users.create({ id: "user_a", name: "ada", role: "developer" });
  await repos.sessions.create({ id: "ses_a", name: "a", ownerId: "user_a", autonomy: "default", network: "none", env: {} });
  await repos.runs.create({ id: "run_1", sessionId: "ses_a", userId: "user_a", tool: "bash", kind: "bash", args: {}, secrets: [], caller: "api", startedAt: new Date() });
}, 60_000);
afterAll(() => close());

const call = { sessionId: "ses_a", userId: "user_a", caller: "agent", via: "mcp", tool: "bash", argsSha256: "x", actionClass: "execute", verdict: "allow", approvalId: null, ok: true, errorCode: null, durationMs: 3 };

describe("ToolCallRepository", () => {
  it("stores the args redacted and the trace as JSON, and lists a run's calls oldest first without either", async () => {
    await repos.toolCalls.record({ ...call, id: "call_1", args: { command: "curl -H 'x: s3cr3tvalue'", env: { PASSWORD: "pw" } }, secrets: ["s3cr3tvalue"], runId: "run_1", trace: { steps: 2 } });
    await new Promise((resolve) => setTimeout(resolve, 5));
    await repos.toolCalls.record({ ...call, id: "call_2", args: {}, secrets: [], runId: "run_1", trace: undefined, ok: null, verdict: "ask" });
    await repos.toolCalls.record({ ...call, id: "call_3", args: {}, secrets: [], runId: null, trace: undefined });
    const row = await db.toolCall.findUniqueOrThrow({ where: { id: "call_1" } });
    expect(row.argsJson).not.toContain("s3cr3tvalue");
    expect(row.argsJson).not.toContain('"pw"');
    expect(JSON.parse(row.traceJson!)).toEqual({ steps: 2 });
    expect((await db.toolCall.findUniqueOrThrow({ where: { id: "call_2" } })).traceJson).toBeNull();
    const calls = await repos.toolCalls.listForRun("run_1");
    expect(calls.map((c) => [c.id, c.verdict, c.ok])).toEqual([["call_1", "allow", true], ["call_2", "ask", null]]);
    expect(Object.keys(calls[0]!)).not.toContain("argsJson");
  });
});
