import { describe, expect, it } from "vitest";
import { useTestRepositories } from "./testing/open-test-repositories";

const t = useTestRepositories();

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
});
