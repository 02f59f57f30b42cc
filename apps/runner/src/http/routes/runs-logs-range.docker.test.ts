import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestRunner, TEST_ADMIN_TOKEN, type TestRunner } from "../../testing/runner-test-kit";

let kit: TestRunner;
let runId: string;
/** What the run printed, stdout and stderr in the order written: the combined log. */
const combined = Buffer.from("first line\nérr ✓\nlast line\n");

beforeAll(async () => {
  kit = await startTestRunner();
  const session = await kit.createSession({ autonomy: "trusted" });
  // One write per line (run_script runs python -u, where print writes the text and the newline apart, and a loaded
  // machine may hand the agent those as two chunks): a write this small reaches the pipe whole, so each line is a chunk.
  const script =
    "import sys, time\nsys.stdout.write('first line\\n')\ntime.sleep(0.3)\nsys.stderr.write('érr ✓\\n')\ntime.sleep(0.3)\nsys.stdout.write('last line\\n')\n";
  expect((await kit.tool(session, "write_file", { path: "r.py", content: script })).body).toMatchObject({ ok: true });
  const ran = await kit.tool<{ ok: boolean; runId: string }>(session, "run_script", { interpreter: "python3", script: "r.py" });
  expect(ran.body.ok).toBe(true);
  runId = ran.body.runId;
});
afterAll(async () => kit?.close());

const download = (stream: string, range?: string) =>
  fetch(`${kit.url}/api/runs/${runId}/logs?stream=${stream}&download=1`, {
    headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}`, ...(range === undefined ? {} : { range }) },
  });
const bytes = async (response: Response) => Buffer.from(await response.arrayBuffer());

describe("GET /api/runs/:id/logs?download=1 with a Range header", () => {
  it("answers the whole log without one, and says ranges are accepted", async () => {
    const response = await download("combined");
    expect(response.status).toBe(200);
    expect(response.headers.get("accept-ranges")).toBe("bytes");
    expect(response.headers.get("content-length")).toBe(String(combined.length));
    expect((await bytes(response)).equals(combined)).toBe(true);
  });

  it("streams a byte range from an offset, between two offsets, or the last bytes, as 206 with its Content-Range", async () => {
    const from = await download("combined", "bytes=11-");
    expect(from.status).toBe(206);
    expect(from.headers.get("content-range")).toBe(`bytes 11-${combined.length - 1}/${combined.length}`);
    // Byte offsets: "érr ✓\n" is 9 bytes, so a range cuts by bytes, not characters.
    expect((await bytes(from)).equals(combined.subarray(11))).toBe(true);

    const between = await download("combined", "bytes=11-19");
    expect(between.headers.get("content-range")).toBe(`bytes 11-19/${combined.length}`);
    expect((await bytes(between)).toString()).toBe("érr ✓\n");

    const tail = await download("stdout", "bytes=-10");
    expect((await bytes(tail)).toString()).toBe("last line\n");
    // An end past the log is cut at the log's end.
    const past = await download("stderr", "bytes=5-999");
    expect(past.headers.get("content-range")).toBe("bytes 5-8/9");
    expect((await bytes(past)).toString()).toBe("✓\n");
  });

  it("refuses a range at the log's end with 416 and the size, and a malformed header with 400 naming it", async () => {
    const atEnd = await download("combined", `bytes=${combined.length}-`);
    expect(atEnd.status).toBe(416);
    expect(atEnd.headers.get("content-range")).toBe(`bytes */${combined.length}`);
    expect(((await atEnd.json()) as { error: { message: string } }).error.message).toContain(`${combined.length} bytes`);

    const malformed = await download("combined", "bytes=1-2,5-6");
    expect(malformed.status).toBe(400);
    expect(((await malformed.json()) as { error: { message: string } }).error.message).toContain("Range header");
  });

  it("GET /logs/times says when the bytes of a range arrived, as a page with timestamps=1 does", async () => {
    const page = await kit.api<{ times: [number, number][] }>("GET", `/api/runs/${runId}/logs?stream=combined&timestamps=1`);
    const times = await kit.api<{ times: [number, number][]; size: number }>("GET", `/api/runs/${runId}/logs/times?stream=combined`);
    expect(times.status).toBe(200);
    expect(times.body.size).toBe(combined.length);
    expect(times.body.times.map(([offset]) => offset)).toEqual([0, 11, 20]);
    expect(times.body.times).toEqual(page.body.times);
    // A range from inside the second chunk starts with that chunk.
    const later = await kit.api<{ times: [number, number][] }>("GET", `/api/runs/${runId}/logs/times?stream=combined&offset=12`);
    expect(later.body.times.map(([offset]) => offset)).toEqual([11, 20]);
    const bad = await kit.api<{ error: { message: string } }>("GET", `/api/runs/${runId}/logs/times?offset=-1`);
    expect(bad.status).toBe(400);
    expect(bad.body.error.message).toContain("offset");
  });
});
