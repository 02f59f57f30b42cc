import { describe, expect, it } from "vitest";
import { seedSessions, useTestRepositories } from "./testing/open-test-repositories";

const t = useTestRepositories(async (repos) => {
  await seedSessions(repos, { ses_a: "user_a", ses_b: "user_b" });
});

describe("RunLogChunkRepository", () => {
  it("stores a batch of chunks and reads them back by run, in order, from a sequence number", async () => {
    const chunks = [
      { runId: "run_a", seq: 0, stream: "stdout" as const, offset: 0, ms: 1_700_000_000_001, data: Buffer.from("hello ") },
      { runId: "run_a", seq: 1, stream: "stderr" as const, offset: 0, ms: 1_700_000_000_002, data: Buffer.from([0xe2, 0x82]) },
      { runId: "run_a", seq: 2, stream: "stdout" as const, offset: 6, ms: 1_700_000_000_003, data: Buffer.from("world\n") },
      { runId: "run_b", seq: 0, stream: "stdout" as const, offset: 0, ms: 1_700_000_000_004, data: Buffer.from("other") },
    ];
    await t.repos.runLogChunks.append(chunks);
    expect(await t.repos.runLogChunks.list("run_a", 0, 10)).toEqual(chunks.slice(0, 3));
    expect((await t.repos.runLogChunks.list("run_a", 1, 1)).map((c) => [c.seq, c.stream, c.offset, [...c.data]])).toEqual([[1, "stderr", 0, [0xe2, 0x82]]]);
    expect(await t.repos.runLogChunks.list("run_a", 3, 10)).toEqual([]);
    expect([await t.repos.runLogChunks.count("run_a"), await t.repos.runLogChunks.count("run_b"), await t.repos.runLogChunks.count("run_none")]).toEqual([3, 1, 0]);
  });

  it("stores a batch whole or not at all: a sequence number taken twice fails the batch", async () => {
    await t.repos.runLogChunks.append([{ runId: "run_c", seq: 0, stream: "stdout", offset: 0, ms: 1, data: Buffer.from("a") }]);
    await expect(
      t.repos.runLogChunks.append([
        { runId: "run_c", seq: 1, stream: "stdout", offset: 1, ms: 2, data: Buffer.from("b") },
        { runId: "run_c", seq: 0, stream: "stdout", offset: 0, ms: 2, data: Buffer.from("c") },
      ]),
    ).rejects.toThrow();
    expect((await t.repos.runLogChunks.list("run_c", 0, 10)).map((c) => c.data.toString())).toEqual(["a"]);
  });

  it("deletes the chunks of a session's runs and nobody else's", async () => {
    const run = (id: string, sessionId: string) =>
      t.repos.runs.create({ id, sessionId, userId: "user_a", tool: "bash", kind: "bash", args: {}, secrets: [], caller: "api", startedAt: new Date() });
    await run("run_a1", "ses_a");
    await run("run_a2", "ses_a");
    await run("run_b1", "ses_b");
    const chunk = (runId: string, seq: number) => ({ runId, seq, stream: "stdout" as const, offset: seq, ms: 1, data: Buffer.from("x") });
    await t.repos.runLogChunks.append([chunk("run_a1", 0), chunk("run_a1", 1), chunk("run_a2", 0), chunk("run_b1", 0), chunk("run_gone", 0)]);
    const removed = await t.repos.runLogChunks.deleteForSession("ses_a");
    expect({ runIds: [...removed.runIds].sort(), chunks: removed.chunks }).toEqual({ runIds: ["run_a1", "run_a2"], chunks: 3 });
    expect([await t.repos.runLogChunks.count("run_a1"), await t.repos.runLogChunks.count("run_a2"), await t.repos.runLogChunks.count("run_b1"), await t.repos.runLogChunks.count("run_gone")]).toEqual([0, 0, 1, 1]);
    expect(await t.repos.runLogChunks.deleteForSession("ses_none")).toEqual({ runIds: [], chunks: 0 });
  });

  it("deletes the chunks of the runs named and no other's", async () => {
    const chunk = (runId: string, seq: number) => ({ runId, seq, stream: "stdout" as const, offset: seq, ms: 1, data: Buffer.from("x") });
    await t.repos.runLogChunks.append([chunk("run_r1", 0), chunk("run_r1", 1), chunk("run_r2", 0), chunk("run_r3", 0)]);
    expect(await t.repos.runLogChunks.deleteForRuns(["run_r1", "run_r2", "run_never"])).toBe(3);
    expect([await t.repos.runLogChunks.count("run_r1"), await t.repos.runLogChunks.count("run_r2"), await t.repos.runLogChunks.count("run_r3")]).toEqual([0, 0, 1]);
    expect(await t.repos.runLogChunks.deleteForRuns([])).toBe(0);
  });
});

