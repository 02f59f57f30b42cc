import { afterEach, describe, expect, it, vi } from "vitest";
import { ApiError, getRunLogs, listRuns } from "./api";

/** The runner's answer as fetch would hand it over. */
const answer = (body: unknown, status = 200) => vi.fn(async () => new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } }));

const run = {
  id: "run_1",
  sessionId: "ses_1",
  userId: "user_1",
  caller: "browser",
  tool: "run_script",
  kind: "script",
  status: "finished",
  outcome: "succeeded",
  cause: null,
  exitCode: 0,
  args: { path: "a.sh" },
  details: {},
  stdoutBytes: 3,
  stderrBytes: 0,
  startedAt: "2026-12-01T10:00:00.000Z",
  endedAt: "2026-12-01T10:00:01.000Z",
  durationMs: 1000,
  receiptId: null,
};

describe("the web's API client parses every answer with the protocol's schema", () => {
  afterEach(() => vi.unstubAllGlobals());

  it("hands over an answer that matches", async () => {
    vi.stubGlobal("fetch", answer({ runs: [run] }));
    const runs = await listRuns();
    expect(runs.map((r) => r.id)).toEqual(["run_1"]);
  });

  it("refuses one that does not, naming the endpoint and the field", async () => {
    vi.stubGlobal("fetch", answer({ runs: [{ ...run, startedAt: 1764583200000 }] }));
    const error = await listRuns().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).code).toBe("bad_response");
    expect((error as ApiError).message).toMatch(/^GET \/api\/runs answered what this page does not read: runs\.0\.startedAt: /);
  });

  it("names a missing field of a log page", async () => {
    vi.stubGlobal("fetch", answer({ content: "hi", offset: 0, nextOffset: 2, size: 2 }));
    const error = await getRunLogs("run_1", "stdout").catch((e: unknown) => e);
    expect((error as ApiError).message).toMatch(/^GET \/api\/runs\/run_1\/logs answered .*: done: /);
  });

  it("keeps the runner's own error for a failed request", async () => {
    vi.stubGlobal("fetch", answer({ error: { code: "not_found", message: "Run not found: run_2" } }, 404));
    const error = await getRunLogs("run_2", "stdout").catch((e: unknown) => e);
    expect(error).toMatchObject({ status: 404, code: "not_found", message: "Run not found: run_2" });
  });
});
