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
    // A chunk per line, at the byte offsets where the lines start ("érr\n" is 5 bytes), in order and half a second
    // apart. A loaded machine may hand the agent one print in two reads ("first", then "\n"): that chunk has a time
    // of its own inside its line, so only the line starts are required.
    const offsets = times.map(([offset]) => offset);
    expect(offsets).toEqual([...offsets].sort((a, b) => a - b));
    expect(offsets).toEqual(expect.arrayContaining([0, 6, 11]));
    const at = (offset: number) => times.find(([o]) => o === offset)![1];
    for (const [, ms] of times) {
      expect(ms).toBeGreaterThanOrEqual(Date.parse(run.startedAt));
      expect(ms).toBeLessThanOrEqual(Date.parse(run.endedAt));
    }
    expect(at(6) - at(0)).toBeGreaterThanOrEqual(500);
    expect(at(11) - at(6)).toBeGreaterThanOrEqual(500);

    // One stream: its own offsets; a page from the middle starts with the chunk it falls in.
    const stdout = (await kit.api<Page>("GET", `/api/runs/${ran.body.runId}/logs?stream=stdout&offset=3&timestamps=1`)).body;
    expect(stdout.times![0]).toEqual([0, at(0)]);
    expect(stdout.times).toContainEqual([6, at(11)]);
    // Without the flag the page is as before.
    expect((await kit.api<Page>("GET", `/api/runs/${ran.body.runId}/logs?stream=combined`)).body.times).toBeUndefined();
  });
});
