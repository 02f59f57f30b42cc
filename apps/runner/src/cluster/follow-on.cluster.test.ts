import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { io as connect, type Socket } from "socket.io-client";
import { ChildRunner } from "../testing/child-runner";
import { TEST_ADMIN_TOKEN, startTestRunner, type TestRunner } from "../testing/runner-test-kit";
import { createTestDatabase, type TestDatabase } from "../testing/test-database";

// Failover follows on what still runs (docs/scale-out.md): runner A, a child process, runs a background process
// printing a counter and a terminal running a loop; A is SIGKILLed; runner B takes the session over and both runs
// go on as B's, followed from where their stored logs ended. A client of B sees every byte from offset 0 once,
// in order, and both end as they would have on A, with receipts that verify.
const LEASE_MS = 5_000;
const REDIS_URL = process.env["BERTH_TEST_REDIS_URL"] ?? "";

type ToolReply = { ok: boolean; runId?: string; output?: string; details?: Record<string, unknown> };
type Run = { id: string; status: string; outcome: string | null; cause: string | null; exitCode: number | null; stdoutBytes: number; receiptId: string | null };
type Receipt = { body: { logs: { name: string; sha256: string; bytes: number }[]; outcome: string } };

let database: TestDatabase;
let a: ChildRunner;
let b: TestRunner;
let scratch: string;
const sockets: Socket[] = [];

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const sha256 = (bytes: Buffer) => crypto.createHash("sha256").update(bytes).digest("hex");

async function until(what: string, check: () => Promise<boolean> | boolean, ms = 30_000, context = () => ""): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${ms / 1000} s waiting for ${what} ${context()}`);
    await sleep(100);
  }
}

async function socketOn(url: string, auth: { cookie?: string } = {}): Promise<Socket> {
  const socket = connect(url, {
    ...(auth.cookie ? { extraHeaders: { cookie: auth.cookie } } : { auth: { token: TEST_ADMIN_TOKEN } }),
    transports: ["websocket"],
    forceNew: true,
    reconnection: false,
  });
  sockets.push(socket);
  await new Promise<void>((resolve, reject) => {
    socket.once("connect", () => resolve());
    socket.once("connect_error", reject);
  });
  return socket;
}

function call<T>(socket: Socket, event: string, payload: unknown): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${event}: no ack within 30 s`)), 30_000);
    socket.emit(event, payload, (error: { code: string; message: string } | null, result: T) => {
      clearTimeout(timer);
      if (error) reject(new Error(`${event}: ${error.code}: ${error.message}`));
      else resolve(result);
    });
  });
}

/** Bytes a client was sent from `from` on, in order; an offset out of place (a gap or a duplicate) is noted. */
function received(from = 0) {
  return { bytes: [] as Buffer[], offset: from, problem: "" };
}
function take(state: ReturnType<typeof received>, offset: number, data: Buffer): void {
  if (offset !== state.offset) state.problem ||= `gap or duplicate: offset ${offset}, expected ${state.offset}`;
  else {
    state.bytes.push(data);
    state.offset += data.length;
  }
}

const runOf = async (runId: string) => (await b.api<{ run: Run }>("GET", `/api/runs/${runId}`)).body.run;

async function storedLog(runId: string): Promise<Buffer> {
  const response = await fetch(`${b.url}/api/runs/${runId}/logs?stream=stdout&download=1`, { headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}` } });
  expect(response.status).toBe(200);
  return Buffer.from(await response.arrayBuffer());
}

/** The run's receipt: its stdout digest is the log's as stored, its outcome the run's, and it verifies. */
async function expectSealed(run: Run, stored: Buffer): Promise<void> {
  await until(`run ${run.id} sealed`, async () => (await runOf(run.id)).receiptId !== null);
  const receipt = (await b.api<Receipt>("GET", `/api/receipts/${(await runOf(run.id)).receiptId}`)).body;
  expect(receipt.body.outcome).toBe(run.outcome);
  expect(receipt.body.logs.find((l) => l.name === "stdout")).toEqual({ name: "stdout", sha256: sha256(stored), bytes: stored.length });
  expect((await b.api<{ valid: boolean }>("POST", "/api/receipts/verify", { receipt })).body).toEqual({ valid: true });
}

beforeAll(async () => {
  if (!REDIS_URL || !process.env["BERTH_TEST_POSTGRES_URL"]) throw new Error("the cluster tests need BERTH_TEST_POSTGRES_URL and BERTH_TEST_REDIS_URL (npm test's setup starts both servers)");
  scratch = fs.mkdtempSync(path.join(os.tmpdir(), "berth-follow-on-test-"));
  database = createTestDatabase(scratch);
  const suffix = `${process.pid % 100_000}-${crypto.randomBytes(3).toString("hex")}`;
  const env = { BERTH_SESSION_LEASE_MS: String(LEASE_MS), BERTH_REDIS_URL: REDIS_URL, BERTH_CLUSTER_SECRET: crypto.randomBytes(32).toString("hex") };
  a = await ChildRunner.create({ runnerId: `fw-a-${suffix}`, env, database });
  b = await startTestRunner({ runnerId: `fw-b-${suffix}`, database, env });
});

afterAll(async () => {
  for (const socket of sockets) socket.disconnect();
  await a?.close().catch(() => undefined);
  await b?.close().catch(() => undefined);
  database?.drop();
  fs.rmSync(scratch, { recursive: true, force: true });
});

describe("failover follows on a background process and a terminal", () => {
  it("A SIGKILLed: B takes up both runs where their logs end, a client of B gets every byte once, both end normally with receipts", async () => {
    const session = (await a.api<{ id: string }>("POST", "/api/sessions", { autonomy: "trusted" })).body.id;

    // A background process printing a counter until told to stop: what it writes is known from its last number.
    const started = await a.api<ToolReply>("POST", `/api/sessions/${session}/tools/bash`, {
      args: { action: "start", command: "i=0; while [ ! -e stop-counter ]; do echo count-$i; i=$((i+1)); sleep 0.02; done; echo done-$i" },
    });
    expect(started.body.ok).toBe(true);
    const processRun = started.body.runId!;
    const processId = String(started.body.details?.["processId"]);
    // Followed through B from offset 0 before the kill (B mirrors A's log), and on after it.
    const watcher = await socketOn(b.url);
    const shown = received();
    watcher.on("run:output", (event: { runId: string; stream: string; offset: number; data: string }) => {
      if (event.runId === processRun && event.stream === "stdout") take(shown, event.offset, Buffer.from(event.data));
    });
    await call(watcher, "run:subscribe", { runId: processRun, offset: { stdout: 0, stderr: 0 } });

    // A terminal opened through A running a loop, attached through B.
    const minted = await a.api<{ secret: string }>("POST", "/api/browser-sessions", { userAgent: "follow-on test" });
    const cookie = `berth_browser=${minted.body.secret}`;
    const opener = await socketOn(a.url, { cookie });
    const terminal = await call<{ terminalId: string; runId: string }>(opener, "terminal:open", { sessionId: session, cols: 80, rows: 24 });
    await call(opener, "terminal:input", { terminalId: terminal.terminalId, data: "for i in $(seq 1 100000); do echo tick-$i; sleep 0.05; [ -e stop-ticks ] && break; done; exit 0\r" });
    const screen = received();
    let exitCode: number | null | undefined;
    /** A browser's connection to B following the terminal from `offset`, as the IDE attaches: list, then attach. */
    const attach = async (offset: number) => {
      const browser = await socketOn(b.url, { cookie });
      browser.on("terminal:output", (event: { terminalId: string; offset: number; data: Buffer }, ack?: () => void) => {
        if (event.terminalId === terminal.terminalId) take(screen, event.offset, Buffer.from(event.data));
        ack?.();
      });
      browser.on("terminal:exit", (event: { terminalId: string; exitCode: number | null }) => {
        if (event.terminalId === terminal.terminalId) exitCode = event.exitCode;
      });
      await call(browser, "terminal:list", { sessionId: session });
      await call(browser, "terminal:attach", { terminalId: terminal.terminalId, offset });
      return browser;
    };
    // Through B while A holds the session: forwarded to A.
    const before = await attach(0);
    await until("both running through A", () => Buffer.concat(shown.bytes).includes("count-50\n") && Buffer.concat(screen.bytes).includes("tick-20\r\n"), 30_000, () => `(${shown.offset} and ${screen.offset} bytes)`);

    await a.kill();
    const killedAt = Date.now();
    await until("B took the session over", async () => (await b.api<ToolReply>("POST", `/api/sessions/${session}/tools/bash`, { args: { action: "exec", command: "true" } }).catch(() => null))?.body.ok === true, LEASE_MS + 20_000);
    process.stdout.write(`follow-on: session usable through B ${Date.now() - killedAt} ms after A was killed (lease ${LEASE_MS} ms)\n`);

    // Both runs are still running, now B's, and their logs grow past what A had stored.
    const atTakeOver = { process: shown.offset, terminal: screen.offset };
    expect(await runOf(processRun)).toMatchObject({ status: "running" });
    expect(await runOf(terminal.runId)).toMatchObject({ status: "running" });
    await until("the process's output after the take-over", () => shown.offset > atTakeOver.process + 200, 30_000, () => `(${shown.offset} bytes)`);
    // The browser's connection was relayed to A: it reconnects (to B, which holds the session now) and attaches
    // again from the offset it has, as the IDE does.
    before.disconnect();
    await attach(screen.offset);
    await until("the terminal's output after the take-over", () => screen.offset > atTakeOver.terminal + 100, 30_000, () => `(${screen.offset} bytes)`);
    expect((await b.api<ToolReply>("POST", `/api/sessions/${session}/tools/bash`, { args: { action: "exec", command: "touch stop-counter stop-ticks" } })).body.ok).toBe(true);

    // The process ends on its own: succeeded, its log exactly what it wrote (every number once, in order).
    await until("the process's run to end", async () => (await runOf(processRun)).status !== "running", 30_000);
    const ended = await runOf(processRun);
    expect(ended).toMatchObject({ status: "finished", outcome: "succeeded", exitCode: 0, cause: null });
    const log = await storedLog(processRun);
    const last = Number(/done-(\d+)\n$/.exec(log.toString())?.[1]);
    const wrote = Buffer.from(`${Array.from({ length: last }, (_, i) => `count-${i}\n`).join("")}done-${last}\n`);
    expect(sha256(log)).toBe(sha256(wrote));
    await until("the client to have the whole log", () => shown.offset >= log.length, 30_000, () => `(${shown.offset} of ${log.length})`);
    expect(shown.problem).toBe("");
    expect(sha256(Buffer.concat(shown.bytes))).toBe(sha256(wrote));
    await expectSealed(ended, log);
    const processes = await b.api<ToolReply>("POST", `/api/sessions/${session}/tools/bash`, { args: { action: "list" } });
    expect((processes.body.details?.["processes"] as { processId: string; status: string }[]).find((p) => p.processId === processId)?.status).toBe("EXITED");

    // The terminal's shell exits: the run succeeded, the client got the whole transcript once, every tick once.
    await until("the terminal's run to end", async () => (await runOf(terminal.runId)).status !== "running", 30_000);
    const closed = await runOf(terminal.runId);
    expect(closed).toMatchObject({ status: "finished", outcome: "succeeded", exitCode: 0 });
    const transcript = await storedLog(terminal.runId);
    await until("the terminal's exit on the client", () => exitCode !== undefined && screen.offset >= transcript.length, 30_000, () => `(${screen.offset} of ${transcript.length})`);
    expect(screen.problem).toBe("");
    expect(sha256(Buffer.concat(screen.bytes))).toBe(sha256(transcript));
    const ticks = [...transcript.toString().matchAll(/^tick-(\d+)\r$/gm)].map((m) => Number(m[1]));
    expect(ticks.length).toBeGreaterThan(20);
    expect(ticks).toEqual(Array.from({ length: ticks.length }, (_, i) => i + 1));
    await expectSealed(closed, transcript);
  }, 180_000);
});
