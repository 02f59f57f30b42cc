import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { RunLogChunkRecord } from "@berth/db";
import { RunnerEvents } from "../events/runner-events";
import { LOG_TIMES_FILE } from "../runs/run-log-times";
import { RunLogs, readLog } from "../runs/run-logs";
import { LocalClusterBus } from "./cluster-bus";
import { DatabaseLogStore } from "./database-log-store";
import type { StoredRun } from "./run-log-store";

/** The RunLogChunk table, in memory (the repository itself is tested against SQLite in packages/db). */
class MemoryChunks {
  rows: RunLogChunkRecord[] = [];
  /** Each run's session, as the Run table would say. */
  readonly sessions = new Map<string, string>();
  statements = 0;
  append(chunks: RunLogChunkRecord[]): Promise<void> {
    this.statements += 1;
    this.rows.push(...chunks.map((c) => ({ ...c, data: Buffer.from(c.data) })));
    return Promise.resolve();
  }
  list(runId: string, fromSeq: number, limit: number): Promise<RunLogChunkRecord[]> {
    return Promise.resolve(this.rows.filter((c) => c.runId === runId && c.seq >= fromSeq).slice(0, limit));
  }
  count(runId: string): Promise<number> {
    return Promise.resolve(this.rows.filter((c) => c.runId === runId).length);
  }
  /** How long a deletion takes (a database under load). */
  deleteMs = 0;
  async deleteForSession(sessionId: string): Promise<{ runIds: string[]; chunks: number }> {
    if (this.deleteMs > 0) await new Promise((resolve) => setTimeout(resolve, this.deleteMs));
    const runIds = [...this.sessions].filter(([, s]) => s === sessionId).map(([runId]) => runId);
    const before = this.rows.length;
    this.rows = this.rows.filter((c) => !runIds.includes(c.runId));
    return { runIds, chunks: before - this.rows.length };
  }
  deleteForRuns(runIds: string[]): Promise<number> {
    const before = this.rows.length;
    this.rows = this.rows.filter((c) => !runIds.includes(c.runId));
    return Promise.resolve(before - this.rows.length);
  }
}

const dirs: string[] = [];
const stores: DatabaseLogStore[] = [];
afterEach(async () => {
  for (const store of stores.splice(0)) await store.close();
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

/** The in-process bus, counting what is published on runs' log channels. */
class CountingBus extends LocalClusterBus {
  readonly published = new Map<string, number>();
  override publish(channel: string, message: Buffer | string): Promise<number> {
    if (channel.startsWith("log:")) this.published.set(channel, (this.published.get(channel) ?? 0) + 1);
    return super.publish(channel, message);
  }
}

function runner(chunks: MemoryChunks, bus: LocalClusterBus, rows: Map<string, StoredRun>) {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "berth-dbstore-"));
  dirs.push(dataDir);
  const events = new RunnerEvents();
  const store = new DatabaseLogStore({
    chunks,
    runs: { get: (id) => Promise.resolve((rows.get(id) ?? null) as never) },
    bus,
    dataDir,
    events,
    log: (line) => {
      throw new Error(line);
    },
    pollMs: 20,
    followersTtlMs: 10,
  });
  stores.push(store);
  return { dataDir, events, store };
}

/** Two runners' stores on one database and one bus, with the runs' rows they read. */
function twoRunners() {
  const chunks = new MemoryChunks();
  const bus = new LocalClusterBus();
  const rows = new Map<string, StoredRun>();
  return { chunks, rows, a: runner(chunks, bus, rows), b: runner(chunks, bus, rows) };
}

/** A run still writing on runner A (one line out) whose session's logs were just removed. */
async function drainingRunRemoved(runId: string, sessionId: string) {
  const cluster = twoRunners();
  cluster.chunks.sessions.set(runId, sessionId);
  cluster.rows.set(runId, { id: runId, sessionId, status: "running", stdoutBytes: 0, stderrBytes: 0, details: {} });
  const logs = new RunLogs(RunLogs.dirFor(cluster.a.dataDir, runId), Date.now, cluster.a.store.sinkFor(runId));
  logs.append("stdout", Buffer.from("before\n"));
  await new Promise((resolve) => setTimeout(resolve, 30));
  await cluster.a.store.removeSession(sessionId);
  return { ...cluster, logs };
}

const files = (dataDir: string, runId: string) =>
  ["stdout.log", "stderr.log", LOG_TIMES_FILE].map((file) => fs.readFileSync(path.join(RunLogs.dirFor(dataDir, runId), file)).toString("hex"));

describe("DatabaseLogStore", () => {
  it("stores each batch before announcing it; a runner that follows the live run from the middle gets every byte once, with the same files", async () => {
    const { chunks, rows, a, b } = twoRunners();
    const runId = "run_live";
    rows.set(runId, { id: runId, sessionId: "ses_1", status: "running", stdoutBytes: 0, stderrBytes: 0, details: { processId: "proc_1" } });
    let ms = 1_000;
    const logs = new RunLogs(RunLogs.dirFor(a.dataDir, runId), () => Math.floor(ms++ / 3), a.store.sinkFor(runId));
    const announcedBeforeStored: number[] = [];
    const write = async (from: number, to: number) => {
      for (let i = from; i < to; i++) {
        const stream = i % 4 === 3 ? "stderr" : "stdout";
        // A character cut across two chunks: B's events still carry whole characters at exact offsets.
        logs.append(stream, Buffer.from(`${stream} line ${i} ${"é".repeat(i % 7)}`.slice(0, 40 + (i % 3)) + "\n"), () => {
          const stored = chunks.rows.filter((c) => c.runId === runId).reduce((n, c) => n + c.data.length, 0);
          if (stored < logs.announcedSize("combined")) announcedBeforeStored.push(i);
        });
        if (i % 25 === 0) await new Promise((resolve) => setImmediate(resolve));
      }
      await new Promise((resolve) => setImmediate(resolve));
    };
    await write(0, 300);
    const seen = { stdout: "", stderr: "", combined: "" };
    const ends = { stdout: 0, stderr: 0, combined: 0 };
    b.events.on("run:output", (e) => {
      if (ends[e.stream] === 0 && seen[e.stream] === "") ends[e.stream] = e.offset;
      seen[e.stream] += e.data;
    });
    b.events.on("process:output", (e) => {
      if (ends.combined === 0 && seen.combined === "") ends.combined = e.offset;
      seen.combined += e.data;
    });
    await b.store.ready(rows.get(runId)!);
    // Caught up: what B's files hold, then every chunk told live from there.
    const caughtUp = { stdout: readLog(b.dataDir, runId, "stdout", 0, 1e9).content, stderr: readLog(b.dataDir, runId, "stderr", 0, 1e9).content };
    await write(300, 900);
    await logs.close();
    const size = logs.digests().map((d) => d.bytes);
    rows.set(runId, { ...rows.get(runId)!, status: "finished", stdoutBytes: size[0]!, stderrBytes: size[1]! });
    await b.store.ready(rows.get(runId)!);
    await b.store.completeFromDatabase(runId);
    expect(files(b.dataDir, runId)).toEqual(files(a.dataDir, runId));
    expect(announcedBeforeStored).toEqual([]);
    expect(chunks.statements).toBeLessThan(900);
    const full = (stream: "stdout" | "stderr" | "combined") => readLog(a.dataDir, runId, stream, 0, 1e9).content;
    expect(Buffer.concat([caughtUp.stdout, Buffer.from(seen.stdout)]).equals(full("stdout"))).toBe(true);
    expect(Buffer.concat([caughtUp.stderr, Buffer.from(seen.stderr)]).equals(full("stderr"))).toBe(true);
    expect(full("combined").subarray(ends.combined).toString()).toBe(seen.combined);
  });

  it("a run taken up at failover stores on after its first runner's chunks: a third runner's copy is the whole log", async () => {
    const { chunks, rows, a, b } = twoRunners();
    const runId = "run_taken";
    rows.set(runId, { id: runId, sessionId: "ses_1", status: "running", stdoutBytes: 0, stderrBytes: 0, details: {} });
    const first = new RunLogs(RunLogs.dirFor(a.dataDir, runId), Date.now, a.store.sinkFor(runId));
    first.append("stdout", Buffer.from("before\n"));
    await first.flushed();
    // A dies; B copies what is stored, then goes on writing the same run.
    await b.store.completeFromDatabase(runId);
    const taken = RunLogs.resume(RunLogs.dirFor(b.dataDir, runId), Date.now, b.store.sinkFor(runId, true));
    taken.append("stdout", Buffer.from("after\n"));
    await taken.close();
    expect(chunks.rows.filter((c) => c.runId === runId).map((c) => [c.seq, c.offset])).toEqual([[0, 0], [1, 7]]);
    const c = runner(chunks, new LocalClusterBus(), rows);
    rows.set(runId, { ...rows.get(runId)!, status: "finished", stdoutBytes: 13 });
    await c.store.ready(rows.get(runId)!);
    expect(readLog(c.dataDir, runId, "stdout", 0, 100).content.toString()).toBe("before\nafter\n");
  });

  it("copies a run that ended elsewhere once, then reads its files; a log that was never stored is left as it is", async () => {
    const { chunks, rows, a, b } = twoRunners();
    const logs = new RunLogs(RunLogs.dirFor(a.dataDir, "run_done"), Date.now, a.store.sinkFor("run_done"));
    for (let i = 0; i < 50; i++) logs.append(i % 2 ? "stderr" : "stdout", Buffer.from(`${i}\n`));
    await logs.close();
    const [out, err] = logs.digests();
    rows.set("run_done", { id: "run_done", sessionId: "ses_1", status: "finished", stdoutBytes: out!.bytes, stderrBytes: err!.bytes, details: {} });
    await b.store.ready(rows.get("run_done")!);
    expect(files(b.dataDir, "run_done")).toEqual(files(a.dataDir, "run_done"));
    chunks.rows.length = 0;
    // Whole: the second read asks the database nothing (it holds nothing now).
    await b.store.ready(rows.get("run_done")!);
    expect(files(b.dataDir, "run_done")).toEqual(files(a.dataDir, "run_done"));
    // A's own run: its files are whole, nothing copied over them.
    await a.store.ready(rows.get("run_done")!);
    rows.set("run_old", { id: "run_old", sessionId: "ses_1", status: "finished", stdoutBytes: 5, stderrBytes: 0, details: {} });
    await b.store.ready(rows.get("run_old")!);
    expect(fs.existsSync(RunLogs.dirFor(b.dataDir, "run_old"))).toBe(false);
  });

  it("publishes a run's batches only while another runner follows it; one that starts following mid-run still gets every byte", async () => {
    const chunks = new MemoryChunks();
    const bus = new CountingBus();
    const rows = new Map<string, StoredRun>();
    const [a, b] = [runner(chunks, bus, rows), runner(chunks, bus, rows)];
    const runId = "run_quiet";
    rows.set(runId, { id: runId, sessionId: "ses_1", status: "running", stdoutBytes: 0, stderrBytes: 0, details: {} });
    const logs = new RunLogs(RunLogs.dirFor(a.dataDir, runId), Date.now, a.store.sinkFor(runId));
    const write = async (from: number, to: number) => {
      for (let i = from; i < to; i++) {
        logs.append(i % 10 === 9 ? "stderr" : "stdout", Buffer.from(`line ${i}\n`));
        await new Promise((resolve) => setTimeout(resolve, 1));
      }
      // Stored, and published if it was to be.
      await new Promise((resolve) => setTimeout(resolve, 30));
    };
    await write(0, 50);
    expect(bus.published.get(`log:${runId}`) ?? 0).toBe(0);
    let told = "";
    b.events.on("run:output", (e) => {
      if (e.stream === "stdout") told += e.data;
    });
    await b.store.ready(rows.get(runId)!);
    const caughtUp = readLog(b.dataDir, runId, "stdout", 0, 1e9).content.toString();
    await write(50, 200);
    await logs.close();
    expect(bus.published.get(`log:${runId}`) ?? 0).toBeGreaterThan(0);
    rows.set(runId, { ...rows.get(runId)!, status: "finished", stdoutBytes: logs.digests()[0]!.bytes, stderrBytes: logs.digests()[1]!.bytes });
    await b.store.completeFromDatabase(runId);
    const whole = readLog(a.dataDir, runId, "stdout", 0, 1e9).content.toString();
    expect(caughtUp + told).toBe(whole);
    expect(files(b.dataDir, runId)).toEqual(files(a.dataDir, runId));
  });

  it("removing a session deletes its runs' chunks and every runner's files of them, nobody else's", async () => {
    const { chunks, rows, a, b } = twoRunners();
    for (const [runId, sessionId] of [["run_gone", "ses_gone"], ["run_kept", "ses_kept"]] as const) {
      chunks.sessions.set(runId, sessionId);
      const logs = new RunLogs(RunLogs.dirFor(a.dataDir, runId), Date.now, a.store.sinkFor(runId));
      logs.append("stdout", Buffer.from(`${runId}\n`));
      await logs.close();
      rows.set(runId, { id: runId, sessionId, status: "finished", stdoutBytes: runId.length + 1, stderrBytes: 0, details: {} });
      await b.store.ready(rows.get(runId)!);
    }
    await a.store.removeSession("ses_gone");
    expect(chunks.rows.map((c) => c.runId)).toEqual(["run_kept"]);
    for (const { dataDir } of [a, b]) {
      await expect.poll(() => fs.existsSync(RunLogs.dirFor(dataDir, "run_gone"))).toBe(false);
      expect(readLog(dataDir, "run_kept", "stdout", 0, 100).content.toString()).toBe("run_kept\n");
    }
    // Read again, it is not copied back: the log went with its session.
    await b.store.ready(rows.get("run_gone")!);
    expect(readLog(b.dataDir, "run_gone", "stdout", 0, 100).content.length).toBe(0);
  });

  it("removing runs past retention deletes their chunks and every runner's files of them; a run still writing keeps its log", async () => {
    const { chunks, rows, a, b } = twoRunners();
    for (const runId of ["run_old", "run_new"]) {
      const logs = new RunLogs(RunLogs.dirFor(a.dataDir, runId), Date.now, a.store.sinkFor(runId));
      logs.append("stdout", Buffer.from(`${runId}\n`));
      await logs.close();
      rows.set(runId, { id: runId, sessionId: "ses_a", status: "finished", stdoutBytes: runId.length + 1, stderrBytes: 0, details: {} });
      await b.store.ready(rows.get(runId)!);
    }
    const live = new RunLogs(RunLogs.dirFor(a.dataDir, "run_live"), Date.now, a.store.sinkFor("run_live"));
    live.append("stdout", Buffer.from("still going\n"));
    await live.flushed();
    await a.store.removeRuns(["run_old", "run_live"]);
    expect([...new Set(chunks.rows.map((c) => c.runId))].sort()).toEqual(["run_live", "run_new"]);
    for (const { dataDir } of [a, b]) {
      await expect.poll(() => fs.existsSync(RunLogs.dirFor(dataDir, "run_old"))).toBe(false);
      expect(readLog(dataDir, "run_new", "stdout", 0, 100).content.toString()).toBe("run_new\n");
    }
    expect(readLog(a.dataDir, "run_live", "stdout", 0, 100).content.toString()).toBe("still going\n");
    await live.close();
    // Swept again (another runner's sweep, or this one's after a restart): nothing left to delete, nothing published.
    await b.store.removeRuns(["run_old"]);
    expect(chunks.rows.filter((c) => c.runId === "run_old")).toEqual([]);
  });

  it("a run still writing when its session is removed is removed again once its log ends", async () => {
    const { chunks, a, logs } = await drainingRunRemoved("run_draining", "ses_gone");
    // Its own logs:removed heard back too, the draining run's files are still there to write to.
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(fs.existsSync(RunLogs.pathFor(a.dataDir, "run_draining", "stdout"))).toBe(true);
    logs.append("stderr", Buffer.from("after\n"));
    await logs.close();
    await expect.poll(() => chunks.rows.length).toBe(0);
    await expect.poll(() => fs.existsSync(RunLogs.dirFor(a.dataDir, "run_draining"))).toBe(false);
  });

  it("close waits for what a run's end started: its batches stored after its session was removed are gone before the database closes", async () => {
    const { chunks, logs, a } = await drainingRunRemoved("run_late", "ses_late");
    logs.append("stderr", Buffer.from("after\n"));
    chunks.deleteMs = 50;
    await logs.close();
    await a.store.close();
    expect(chunks.rows.filter((row) => row.runId === "run_late")).toEqual([]);
  });
});
