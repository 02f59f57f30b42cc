import { execFileSync } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createClient } from "redis";
import { createDatabase, createRepositories, type Repositories } from "@berth/db";
import type { Socket } from "socket.io-client";
import { RunLogs, readLog } from "../runs/run-logs";
import { TEST_ADMIN_TOKEN, type TestRunner } from "../testing/runner-test-kit";
import { setSessionOwner } from "../testing/set-session-owner";
import { startTwoRunners, type TwoRunners } from "../testing/two-runners";
import { until } from "../testing/until";

// Logs that survive their runner (issue 20, docs/scale-out.md): with the database log store, a run on runner A is
// followed live by a client of runner B from offset 0, every byte once and in order, and after it ends B serves
// its pages and its Range download as A does, from its own copy of the files.

let runners: TwoRunners;
let sessionId: string;
/** What crossed Redis on each run's log channel, heard by a pattern subscriber (PUBSUB NUMSUB does not count it). */
const published = new Map<string, number>();
let redis: ReturnType<typeof createClient> | undefined;
/** The runners' database, for moving a session's lease as failover does. */
let repos: Repositories | undefined;
let scratch: string;
const suffix = `${process.pid}-${Math.floor(Math.random() * 1e6)}`;
const runnerIds = { a: `la-${suffix}`, b: `lb-${suffix}` };
beforeAll(async () => {
  runners = await startTwoRunners({ runnerIds });
  scratch = fs.mkdtempSync(path.join(os.tmpdir(), "berth-log-store-test-"));
  repos = createRepositories(await createDatabase({ dataDir: scratch, databaseUrl: runners.databaseUrl }));
  redis = createClient({ url: runners.redisUrl });
  await redis.connect();
  await redis.pSubscribe("berth:log:*", (_message: Buffer, channel: Buffer) => {
    const runId = channel.toString().slice("berth:log:".length);
    published.set(runId, (published.get(runId) ?? 0) + 1);
  }, true);
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
afterAll(async () => {
  await redis?.close();
  await repos?.close();
  await runners?.close();
  if (scratch) fs.rmSync(scratch, { recursive: true, force: true });
}, 120_000);

/** psql against the runners' database: one value. */
const sql = (query: string) => execFileSync("psql", [runners.databaseUrl, "-XAtqc", query], { encoding: "utf8" }).trim();
const chunksOfSession = (id: string) => Number(sql(`SELECT count(*) FROM "RunLogChunk" WHERE "runId" IN (SELECT "id" FROM "Run" WHERE "sessionId" = '${id}')`));

/** A session's owner, as failover leaves it: the runner that took it over serves its tool calls itself. */
const own = (id: string, runner: TestRunner) => setSessionOwner(repos!, id, { id: runner === runners.a ? runnerIds.a : runnerIds.b, url: runner.url });

function emitWithAck<T>(socket: Socket, event: string, payload: unknown): Promise<T> {
  return new Promise((resolve, reject) => {
    socket.emit(event, payload, (error: { message: string } | null, result: T) => (error ? reject(new Error(error.message)) : resolve(result)));
  });
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
    await until(async () => (await runners.a.api<{ size: number }>("GET", `/api/runs/${runId}/logs?stream=stdout&limit=1`)).body.size > 0, "A's first output", 60_000);

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
    await until(() => next.stdout >= size("stdout") && next.stderr >= size("stderr"), "B's followers to reach the end of A's log", 60_000);
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
    await until(async () => (await runners.a.api<{ size: number }>("GET", `/api/runs/${started.body.runId}/logs?stream=combined&limit=1`)).body.size > 0, "the process's first output", 60_000);
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
    await until(async () => (await runners.a.api<{ run: { status: string } }>("GET", `/api/runs/${started.body.runId}`)).body.run.status !== "running", "the process to end", 60_000);
    const combined = () => readLog(runners.a.dataDir, started.body.runId, "combined", 0, 1e9).content;
    await until(() => next >= combined().length, "B's follower to reach the end of the combined log", 60_000);
    expect(misplaced).toEqual([]);
    expect(combined().toString()).toContain("err-300\n");
    expect(sha256(Buffer.concat(got))).toBe(sha256(combined()));
  });

  it("a run no other runner follows publishes nothing on Redis, and B still serves every byte of it from the database", async () => {
    // The first run was followed from B: A published it.
    expect(published.get(runId) ?? 0).toBeGreaterThan(0);
    const ran = await runners.a.tool<{ ok: boolean; runId: string }>(sessionId, "run_script", { interpreter: "python3", script: "many.py" });
    expect(ran.body.ok).toBe(true);
    const quiet = ran.body.runId;
    // The pattern subscriber's connection has heard everything A published before the run's end.
    const publisher = redis!.duplicate();
    await publisher.connect();
    await publisher.publish("berth:log:settled", "x");
    await publisher.close();
    await until(() => published.has("settled"), "the pattern subscriber to hear its own publish", 60_000);
    expect(published.get(quiet) ?? 0).toBe(0);
    for (const stream of ["stdout", "stderr"] as const) {
      const fromB = await fetch(`${runners.b.url}/api/runs/${quiet}/logs?stream=${stream}&download=1`, { headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}` } });
      expect(sha256(Buffer.from(await fromB.arrayBuffer()))).toBe(sha256(fs.readFileSync(RunLogs.pathFor(runners.a.dataDir, quiet, stream))));
    }
  });

  it("context recall and monitor on the runner that took the session over read the whole log A wrote", async () => {
    const ran = await runners.a.tool<{ ok: boolean; runId: string }>(sessionId, "run_script", { interpreter: "python3", script: "many.py" });
    expect(ran.body.ok).toBe(true);
    const taken = ran.body.runId;
    expect(fs.existsSync(RunLogs.dirFor(runners.b.dataDir, taken))).toBe(false);
    await own(sessionId, runners.b);
    try {
      const combined = readLog(runners.a.dataDir, taken, "combined", 0, 1e9).content;
      const recalled = await runners.b.tool<{ ok: boolean; output: string; details?: { totalBytes?: number; content?: string } }>(sessionId, "context", { scope: "recall", ref: taken, limit: 4096 });
      expect(recalled.body.ok).toBe(true);
      expect(recalled.body.details?.totalBytes).toBe(combined.length);
      expect(recalled.body.details?.content).toBe(combined.subarray(0, 4096).toString());
      const peek = await runners.b.tool<{ ok: boolean; details?: { stdout?: string; stderr?: string } }>(sessionId, "monitor", { mode: "peek", runId: taken });
      expect(peek.body.ok).toBe(true);
      const stdout = fs.readFileSync(RunLogs.pathFor(runners.a.dataDir, taken, "stdout")).toString();
      expect(peek.body.details?.stdout?.length).toBeGreaterThan(0);
      expect(stdout.endsWith(peek.body.details!.stdout!)).toBe(true);
      // B's files hold the whole log A wrote.
      expect(sha256(readLog(runners.b.dataDir, taken, "combined", 0, 1e9).content)).toBe(sha256(combined));
    } finally {
      await own(sessionId, runners.a);
    }
  });

  it("stores the chunks' bytes lz4-compressed (PostgreSQL's pglz cost more than the rest of the insert)", () => {
    expect(sql(`SELECT attcompression FROM pg_attribute WHERE attrelid = '"RunLogChunk"'::regclass AND attname = 'data'`)).toBe("l");
    expect(Number(sql(`SELECT count(*) FROM "RunLogChunk" WHERE pg_column_compression("data") = 'lz4'`))).toBeGreaterThan(0);
  });

  it("deleting a session deletes its runs' chunks and every runner's files of them, and nothing of another session", async () => {
    const doomed = await runners.a.createSession({ autonomy: "trusted" });
    const ran = await runners.a.tool<{ ok: boolean; runId: string }>(doomed, "bash", { command: "seq 1 20000" });
    expect(ran.body.ok).toBe(true);
    // B reads it: a copy of its own.
    expect((await runners.b.api<{ size: number }>("GET", `/api/runs/${ran.body.runId}/logs?stream=stdout&limit=10`)).body.size).toBeGreaterThan(100_000);
    expect(fs.existsSync(RunLogs.pathFor(runners.b.dataDir, ran.body.runId, "stdout"))).toBe(true);
    const kept = chunksOfSession(sessionId);
    expect(kept).toBeGreaterThan(0);
    expect(chunksOfSession(doomed)).toBeGreaterThan(0);
    const keptOnB = fs.readdirSync(`${runners.b.dataDir}/runs`).filter((id) => id !== ran.body.runId);

    // Deleted through B: forwarded to A, the session's owner.
    expect((await runners.b.api("DELETE", `/api/sessions/${doomed}`)).status).toBe(204);
    expect(chunksOfSession(doomed)).toBe(0);
    expect(chunksOfSession(sessionId)).toBe(kept);
    expect(fs.existsSync(RunLogs.dirFor(runners.a.dataDir, ran.body.runId))).toBe(false);
    await until(() => !fs.existsSync(RunLogs.dirFor(runners.b.dataDir, ran.body.runId)), "B to drop its copy of the deleted session's log", 60_000);
    expect(fs.readdirSync(`${runners.b.dataDir}/runs`).sort()).toEqual(keptOnB.sort());
    // Read again from B, the log is gone, not copied back.
    expect((await runners.b.api<{ size: number }>("GET", `/api/runs/${ran.body.runId}/logs?stream=stdout`)).body.size).toBe(0);
  });
});
