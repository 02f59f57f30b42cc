import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestRunner, type TestRunner } from "../testing/runner-test-kit";

type Page = { content: string; offset: number; nextOffset: number; times?: [number, number][] };

let kit: TestRunner;
let session: string;

beforeAll(async () => {
  kit = await startTestRunner();
  session = await kit.createSession({ autonomy: "trusted" });
});
afterAll(async () => kit?.close());

describe("GET /api/runs/:id/logs?timestamps=1", () => {
  it("says when each chunk of a run's output arrived, at its byte offset, within the run's time", async () => {
    const script = "import sys, time\nprint('first', flush=True)\ntime.sleep(0.6)\nprint('érr', file=sys.stderr, flush=True)\ntime.sleep(0.6)\nprint('last', flush=True)\n";
    expect((await kit.tool(session, "write_file", { path: "t.py", content: script })).body).toMatchObject({ ok: true });
    const ran = await kit.tool<{ ok: boolean; runId: string }>(session, "run_script", { interpreter: "python3", script: "t.py" });
    expect(ran.body.ok).toBe(true);
    const run = (await kit.api<{ run: { startedAt: string; endedAt: string } }>("GET", `/api/runs/${ran.body.runId}`)).body.run;

    const combined = (await kit.api<Page>("GET", `/api/runs/${ran.body.runId}/logs?stream=combined&timestamps=1`)).body;
    expect(combined.content).toBe("first\nérr\nlast\n");
    const times = combined.times!;
    // Three chunks, at the byte offsets where their lines start ("érr\n" is 5 bytes), in order and half a second apart.
    expect(times.map(([offset]) => offset)).toEqual([0, 6, 11]);
    for (const [, ms] of times) {
      expect(ms).toBeGreaterThanOrEqual(Date.parse(run.startedAt));
      expect(ms).toBeLessThanOrEqual(Date.parse(run.endedAt));
    }
    expect(times[1]![1] - times[0]![1]).toBeGreaterThanOrEqual(500);
    expect(times[2]![1] - times[1]![1]).toBeGreaterThanOrEqual(500);

    // One stream: its own offsets; a page from the middle starts with the chunk it falls in.
    const stdout = (await kit.api<Page>("GET", `/api/runs/${ran.body.runId}/logs?stream=stdout&offset=3&timestamps=1`)).body;
    expect(stdout.times).toEqual([
      [0, times[0]![1]],
      [6, times[2]![1]],
    ]);
    // Without the flag the page is as before.
    expect((await kit.api<Page>("GET", `/api/runs/${ran.body.runId}/logs?stream=combined`)).body.times).toBeUndefined();
  });
});
