import crypto from "node:crypto";
import fs from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Socket } from "socket.io-client";
import { RunLogs, readLog } from "../runs/run-logs";
import { TEST_ADMIN_TOKEN } from "../testing/runner-test-kit";
import { startTwoRunners, type TwoRunners } from "../testing/two-runners";

// Logs that survive their runner (issue 20, docs/scale-out.md): with the database log store, a run on runner A is
// followed live by a client of runner B from offset 0, every byte once and in order, and after it ends B serves
// its pages and its Range download as A does, from its own copy of the files.

let runners: TwoRunners;
let sessionId: string;
beforeAll(async () => {
  runners = await startTwoRunners();
  sessionId = await runners.a.createSession({ autonomy: "trusted" });
  // Many lines over a few seconds, stdout and stderr interleaved, with multi-byte characters.
  const script = [
    "import sys, time",
    "for i in range(3000):",
    "    sys.stdout.write(f'line {i} é✓ ' + 'x' * (i % 50) + '\\n')",
    "    if i % 10 == 0: sys.stderr.write(f'err {i}\\n')",
    "    if i % 100 == 0: sys.stdout.flush(); time.sleep(0.05)",
  ].join("\n");
  expect((await runners.a.tool(sessionId, "write_file", { path: "many.py", content: `${script}\n` })).body).toMatchObject({ ok: true });
}, 240_000);
afterAll(async () => runners?.close(), 120_000);

function emitWithAck<T>(socket: Socket, event: string, payload: unknown): Promise<T> {
  return new Promise((resolve, reject) => {
    socket.emit(event, payload, (error: { message: string } | null, result: T) => (error ? reject(new Error(error.message)) : resolve(result)));
  });
}

async function until(check: () => boolean | Promise<boolean>, what: string, ms = 60_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const sha256 = (bytes: Buffer) => crypto.createHash("sha256").update(bytes).digest("hex");

describe("run logs across two runners (BERTH_LOG_STORE=database on PostgreSQL)", () => {
  let runId: string;

  it("a client of B subscribed from offset 0 mid-run gets every byte of A's run once, in order", async () => {
    const onA = await runners.a.socket();
    const started = new Promise<{ runId: string }>((resolve) => onA.once("run:started", resolve));
    const finished = emitWithAck<{ ok: boolean }>(onA, "tool:call", { sessionId, tool: "run_script", args: { interpreter: "python3", script: "many.py" } });
    runId = (await started).runId;
    // Mid-run: A has shown some of it, and is still running.
    await until(async () => (await runners.a.api<{ size: number }>("GET", `/api/runs/${runId}/logs?stream=stdout&limit=1`)).body.size > 0, "A's first output");

    const onB = await runners.b.socket();
    const got = { stdout: [] as Buffer[], stderr: [] as Buffer[] };
    const next = { stdout: 0, stderr: 0 };
    const misplaced: string[] = [];
    onB.on("run:output", (event: { runId: string; stream: "stdout" | "stderr"; offset: number; data: string | ArrayBuffer }) => {
      if (event.runId !== runId) return;
      const bytes = typeof event.data === "string" ? Buffer.from(event.data) : Buffer.from(event.data);
      if (event.offset !== next[event.stream]) misplaced.push(`${event.stream} at ${event.offset}, expected ${next[event.stream]}`);
      next[event.stream] = event.offset + bytes.length;
      got[event.stream].push(bytes);
    });
    const ack = await emitWithAck<{ status: string; offsets: { stdout: number; stderr: number } }>(onB, "run:subscribe", { runId, offset: 0 });
    expect(ack.status).toBe("running");

    expect((await finished).ok).toBe(true);
    const size = (stream: "stdout" | "stderr") => fs.statSync(RunLogs.pathFor(runners.a.dataDir, runId, stream)).size;
    await until(() => next.stdout >= size("stdout") && next.stderr >= size("stderr"), "B's followers to reach the end of A's log");
    expect(misplaced).toEqual([]);
    for (const stream of ["stdout", "stderr"] as const) {
      const file = fs.readFileSync(RunLogs.pathFor(runners.a.dataDir, runId, stream));
      expect(file.length).toBeGreaterThan(stream === "stdout" ? 100_000 : 2_000);
      expect(sha256(Buffer.concat(got[stream]))).toBe(sha256(file));
    }
  });

  it("after the run, B serves the JSON pages (with times) and the Range download exactly as A does", async () => {
    for (const stream of ["stdout", "stderr", "combined"] as const) {
      for (const query of [`stream=${stream}&offset=0&limit=65536&timestamps=1`, `stream=${stream}&offset=70001&limit=5000&timestamps=1`]) {
        const [fromA, fromB] = await Promise.all([runners.a, runners.b].map((r) => r.api<{ content: string; size: number; done: boolean }>("GET", `/api/runs/${runId}/logs?${query}`)));
        expect(fromB!.status).toBe(200);
        expect(fromB!.body).toEqual(fromA!.body);
      }
      const [timesA, timesB] = await Promise.all([runners.a, runners.b].map((r) => r.api("GET", `/api/runs/${runId}/logs/times?stream=${stream}`)));
      expect(timesB!.body).toEqual(timesA!.body);
      for (const range of [undefined, "bytes=1000-", "bytes=12345-67890", "bytes=-777"]) {
        const [fromA, fromB] = await Promise.all(
          [runners.a, runners.b].map(async (r) => {
            const response = await fetch(`${r.url}/api/runs/${runId}/logs?stream=${stream}&download=1`, {
              headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}`, ...(range ? { range } : {}) },
            });
            return { status: response.status, contentRange: response.headers.get("content-range"), body: sha256(Buffer.from(await response.arrayBuffer())) };
          }),
        );
        expect(fromB).toEqual(fromA);
      }
    }
    // B's copy is its own files, equal to A's.
    for (const file of ["stdout.log", "stderr.log", "times.idx"]) {
      const [a, b] = [runners.a, runners.b].map((r) => sha256(fs.readFileSync(`${RunLogs.dirFor(r.dataDir, runId)}/${file}`)));
      expect(b).toBe(a);
    }
  });

  it("a background process on A followed through B (process:subscribe, the combined log) from offset 0 mid-run, every byte once", async () => {
    const started = await runners.a.tool<{ runId: string; details?: { processId?: string } }>(sessionId, "bash", {
      action: "start",
      command: "for i in $(seq 1 300); do echo out-$i; echo err-$i >&2; [ $((i % 30)) = 0 ] && sleep 0.2; done",
    });
    const processId = started.body.details?.processId;
    expect(processId).toBeTruthy();
    await until(async () => (await runners.a.api<{ size: number }>("GET", `/api/runs/${started.body.runId}/logs?stream=combined&limit=1`)).body.size > 0, "the process's first output");
    const onB = await runners.b.socket();
    const got: Buffer[] = [];
    let next = 0;
    const misplaced: number[] = [];
    onB.on("process:output", (event: { processId: string; offset: number; data: string | ArrayBuffer }) => {
      if (event.processId !== processId) return;
      const bytes = typeof event.data === "string" ? Buffer.from(event.data) : Buffer.from(event.data);
      if (event.offset !== next) misplaced.push(event.offset);
      next = event.offset + bytes.length;
      got.push(bytes);
    });
    await emitWithAck(onB, "process:subscribe", { sessionId, processId, offset: 0 });
    await until(async () => (await runners.a.api<{ run: { status: string } }>("GET", `/api/runs/${started.body.runId}`)).body.run.status !== "running", "the process to end");
    const combined = () => readLog(runners.a.dataDir, started.body.runId, "combined", 0, 1e9).content;
    await until(() => next >= combined().length, "B's follower to reach the end of the combined log");
    expect(misplaced).toEqual([]);
    expect(combined().toString()).toContain("err-300\n");
    expect(sha256(Buffer.concat(got))).toBe(sha256(combined()));
  });
});
