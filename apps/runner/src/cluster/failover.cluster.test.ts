import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { io as connect, type Socket } from "socket.io-client";
import { REDACTED } from "@berth/protocol";
import { ChildRunner } from "../testing/child-runner";
import { TEST_ADMIN_TOKEN, startTestRunner, type TestRunner } from "../testing/runner-test-kit";
import { createTestDatabase, type TestDatabase } from "../testing/test-database";

// Failover (docs/scale-out.md): runner A, a child process, is SIGKILLed mid-run; runner B, on the same PostgreSQL
// and Redis, takes A's session over once its lease lapses: the same container and workspace, the run that was in
// flight ended `interrupted` with the failover cause and a receipt that verifies, the terminal followed on by B.
// Then, A started again and killed again: a background process printing a counter and a terminal running a loop
// are followed on by B where their stored logs end; a client of B gets every byte once, and both end normally.
const LEASE_MS = 5_000;
const REDIS_URL = process.env["BERTH_TEST_REDIS_URL"] ?? "";

type ToolReply = { ok: boolean; output?: string; details?: Record<string, unknown> };
type RunReply = { run: { id: string; status: string; outcome: string | null; cause: string | null; exitCode: number | null; stdoutBytes: number; receiptId: string | null } };
type Receipt = { body: { logs: { name: string; sha256: string; bytes: number }[]; outcome: string } };
type Ack<T> = { error: { code: string; message: string } | null; result: T };

let database: TestDatabase;
let a: ChildRunner;
let b: TestRunner;
let scratch: string;
const sockets: Socket[] = [];

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function waitFor(what: string, check: () => Promise<boolean> | boolean, ms = 30_000): Promise<void> {
  const until = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await sleep(100);
  }
}

function call<T>(socket: Socket, event: string, payload: unknown): Promise<Ack<T>> {
  return new Promise((resolve) => socket.emit(event, payload, (error: Ack<T>["error"], result: T) => resolve({ error, result })));
}

async function browserSocket(url: string, cookie: string): Promise<Socket> {
  const socket = connect(url, { extraHeaders: { cookie }, transports: ["websocket"], forceNew: true, reconnection: false });
  sockets.push(socket);
  await new Promise<void>((resolve, reject) => {
    socket.once("connect", () => resolve());
    socket.once("connect_error", reject);
  });
  return socket;
}

/** Opens a terminal in the session through `socket`, types `command` and waits until the screen shows `expected`. */
async function terminalShows(socket: Socket, sessionId: string, command: string, expected: string): Promise<{ terminalId: string; runId: string }> {
  const opened = await call<{ terminalId: string; runId: string }>(socket, "terminal:open", { sessionId, cols: 80, rows: 24 });
  expect(opened.error).toBeNull();
  let shown = "";
  socket.on("terminal:output", (event: { data: Buffer }, ack: () => void) => {
    shown += Buffer.from(event.data).toString("utf8");
    ack();
  });
  const { terminalId } = opened.result;
  expect((await call(socket, "terminal:attach", { terminalId, offset: 0 })).error).toBeNull();
  await call(socket, "terminal:input", { terminalId, data: `${command}\r` });
  await waitFor(`the terminal to show ${expected}`, () => shown.includes(expected));
  return opened.result;
}

const sha256 = (bytes: Buffer) => crypto.createHash("sha256").update(bytes).digest("hex");

/** Bytes a client was sent from offset 0 on, in order; an offset out of place (a gap or a duplicate) is noted. */
function received() {
  const state = { bytes: [] as Buffer[], offset: 0, problem: "" };
  const take = (offset: number, data: Buffer) => {
    if (offset !== state.offset) state.problem ||= `gap or duplicate: offset ${offset}, expected ${state.offset}`;
    else {
      state.bytes.push(data);
      state.offset += data.length;
    }
  };
  return { state, take };
}

const runOf = async (runId: string) => (await b.api<RunReply>("GET", `/api/runs/${runId}`)).body.run;

async function storedLog(runId: string): Promise<Buffer> {
  const response = await fetch(`${b.url}/api/runs/${runId}/logs?stream=stdout&download=1`, { headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}` } });
  expect(response.status).toBe(200);
  return Buffer.from(await response.arrayBuffer());
}

/** The run's receipt: its stdout digest is the log's as stored, its outcome the run's, and it verifies. */
async function expectSealed(run: RunReply["run"], stored: Buffer): Promise<void> {
  await waitFor(`run ${run.id} sealed`, async () => (await runOf(run.id)).receiptId !== null);
  const receipt = (await b.api<Receipt>("GET", `/api/receipts/${(await runOf(run.id)).receiptId}`)).body;
  expect(receipt.body.outcome).toBe(run.outcome);
  expect(receipt.body.logs.find((l) => l.name === "stdout")).toEqual({ name: "stdout", sha256: sha256(stored), bytes: stored.length });
  expect((await b.api<{ valid: boolean }>("POST", "/api/receipts/verify", { receipt })).body).toEqual({ valid: true });
}

beforeAll(async () => {
  if (!REDIS_URL || !process.env["BERTH_TEST_POSTGRES_URL"]) throw new Error("the cluster tests need BERTH_TEST_POSTGRES_URL and BERTH_TEST_REDIS_URL (npm test's setup starts both servers)");
  scratch = fs.mkdtempSync(path.join(os.tmpdir(), "berth-failover-test-"));
  database = createTestDatabase(scratch);
  const suffix = `${process.pid % 100_000}-${crypto.randomBytes(3).toString("hex")}`;
  // The secret lets the runners forward to each other (A, started again at the end, forwards to B).
  const env = { BERTH_SESSION_LEASE_MS: String(LEASE_MS), BERTH_REDIS_URL: REDIS_URL, BERTH_CLUSTER_SECRET: crypto.randomBytes(32).toString("hex") };
  a = await ChildRunner.create({ runnerId: `fo-a-${suffix}`, env, database });
  b = await startTestRunner({ runnerId: `fo-b-${suffix}`, database, env });
});

afterAll(async () => {
  for (const socket of sockets) socket.disconnect();
  // A is started again to delete the sessions it listed (forwarded to B, which holds them now).
  await a?.close().catch(() => undefined);
  await b?.close().catch(() => undefined);
  database?.drop();
  fs.rmSync(scratch, { recursive: true, force: true });
});

describe("failover between two runners", () => {
  it("B adopts A's session after A is killed: same workspace, run interrupted with the failover cause and a verified receipt, terminal followed on", async () => {
    const session = (await a.api<{ id: string }>("POST", "/api/sessions", { autonomy: "trusted" })).body.id;
    const wrote = await a.api<ToolReply>("POST", `/api/sessions/${session}/tools/write_file`, {
      args: { path: "before-kill.txt", content: "written through A\n" },
    });
    expect(wrote.body.ok).toBe(true);
    await a.api<ToolReply>("POST", `/api/sessions/${session}/tools/write_file`, {
      args: { path: "slow.sh", content: "i=0; while true; do echo failover-rs-$i; i=$((i+1)); sleep 0.05; done\n" },
    });

    // A terminal opened through A, with output.
    const minted = await a.api<{ secret: string }>("POST", "/api/browser-sessions", { userAgent: "failover test" });
    const cookie = `berth_browser=${minted.body.secret}`;
    const terminal = await terminalShows(await browserSocket(a.url, cookie), session, "echo term-$((6*7))", "term-42");

    // A run in flight when A dies: its HTTP reply never comes.
    void a.api("POST", `/api/sessions/${session}/tools/run_script`, { args: { interpreter: "bash", script: "slow.sh" } }).catch(() => undefined);
    let runId = "";
    await waitFor("the run_script run to print", async () => {
      const { body } = await b.api<{ runs: { id: string; tool: string; stdoutBytes: number }[] }>("GET", `/api/runs?sessionId=${session}`);
      runId = body.runs.find((r) => r.tool === "run_script")?.id ?? "";
      if (!runId) return false;
      const log = await fetch(`${b.url}/api/runs/${runId}/logs?stream=stdout&download=1`, { headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}` } });
      return (await log.text()).includes("failover-rs-20\n");
    });

    await a.kill();
    const killedAt = Date.now();

    // B holds the session once A's lease lapsed and B's sweep won it; then a tool call through B works on the
    // same workspace (B serves it itself: no forwarding to a runner that is gone).
    let readBack: ToolReply | null = null;
    await waitFor(
      "a tool call through B after the take-over",
      async () => {
        const reply = await b.api<ToolReply>("POST", `/api/sessions/${session}/tools/read_file`, { args: { path: "before-kill.txt" } });
        readBack = reply.status === 200 && reply.body.ok ? reply.body : null;
        return readBack !== null;
      },
      LEASE_MS + 15_000,
    );
    const usableAfterMs = Date.now() - killedAt;
    process.stdout.write(`failover: session usable through B ${usableAfterMs} ms after A was killed (lease ${LEASE_MS} ms)\n`);
    expect(readBack!.output).toContain("written through A");
    const detail = await b.api<{ session: { status: string } } & { status?: string }>("GET", `/api/sessions/${session}`);
    expect(detail.status).toBe(200);

    // The run that was in flight: interrupted, the failover named, its receipt from the log as stored.
    await waitFor("the run to be ended by the failover", async () => (await b.api<RunReply>("GET", `/api/runs/${runId}`)).body.run.status !== "running");
    const { body: ended } = await b.api<RunReply>("GET", `/api/runs/${runId}`);
    expect(ended.run).toMatchObject({ status: "interrupted", outcome: "interrupted" });
    expect(ended.run.cause).toMatch(/^runner_failover: killed in its sandbox at failover from runner fo-a-/);
    const stored = Buffer.from(await (await fetch(`${b.url}/api/runs/${runId}/logs?stream=stdout&download=1`, { headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}` } })).arrayBuffer());
    expect(stored.toString()).toContain("failover-rs-20\n");
    expect(ended.run.stdoutBytes).toBe(stored.length);
    const receipt = (await b.api<Receipt>("GET", `/api/receipts/${ended.run.receiptId}`)).body;
    expect(receipt.body.outcome).toBe("interrupted");
    expect(receipt.body.logs.find((l) => l.name === "stdout")).toEqual({
      name: "stdout",
      sha256: crypto.createHash("sha256").update(stored).digest("hex"),
      bytes: stored.length,
    });
    expect((await b.api<{ valid: boolean }>("POST", "/api/receipts/verify", { receipt })).body).toEqual({ valid: true });
    // The script no longer runs in the container.
    const ps = await b.api<ToolReply>("POST", `/api/sessions/${session}/tools/bash`, { args: { action: "exec", command: "ps -eo args | grep -c '[s]low.sh' || true" } });
    expect(String(ps.body.details?.["stdout"]).trim()).toBe("0");

    // The terminal: followed on by B where its transcript was stored (it used to be hung up with the failover cause):
    // its run still runs, a browser attaching through B from offset 0 sees the transcript, the shell takes input
    // through B, and closing it ends the run with a receipt.
    expect((await b.api<RunReply>("GET", `/api/runs/${terminal.runId}`)).body.run).toMatchObject({ status: "running" });
    const again = await browserSocket(b.url, cookie);
    let screen = "";
    again.on("terminal:output", (event: { terminalId: string; data: Buffer }, ack: () => void) => {
      if (event.terminalId === terminal.terminalId) screen += Buffer.from(event.data).toString("utf8");
      ack();
    });
    expect((await call(again, "terminal:list", { sessionId: session })).error).toBeNull();
    expect((await call(again, "terminal:attach", { terminalId: terminal.terminalId, offset: 0 })).error).toBeNull();
    expect((await call(again, "terminal:input", { terminalId: terminal.terminalId, data: "echo after-$((6*7))\r" })).error).toBeNull();
    await waitFor("the followed terminal to show its transcript and new output", () => screen.includes("term-42") && screen.includes("after-42"));
    expect((await call(again, "terminal:close", { terminalId: terminal.terminalId })).error).toBeNull();
    await waitFor("the terminal's run to end", async () => (await b.api<RunReply>("GET", `/api/runs/${terminal.runId}`)).body.run.status !== "running");
    const { body: terminalRun } = await b.api<RunReply>("GET", `/api/runs/${terminal.runId}`);
    expect(terminalRun.run).toMatchObject({ status: "finished", outcome: "aborted" });
    await waitFor("the terminal's receipt", async () => (await b.api<RunReply>("GET", `/api/runs/${terminal.runId}`)).body.run.receiptId !== null);
    // A new terminal through B works in the same container.
    await terminalShows(await browserSocket(b.url, cookie), session, "cat before-kill.txt", "written through A");

    // A started again leaves B's session alone: its reconcile sees B's lease, and a call through A is forwarded to B.
    await a.start();
    const throughA = await a.api<ToolReply>("POST", `/api/sessions/${session}/tools/read_file`, { args: { path: "before-kill.txt" } });
    expect(throughA.body.ok).toBe(true);
    expect(throughA.body.output).toContain("written through A");
  });

  it("A killed again: B follows on a background process and a terminal where their logs end, a client of B gets every byte once, both end normally with receipts; what it cannot follow exactly ends interrupted with why", async () => {
    // A holds this new session (it was started again above).
    const session = (await a.api<{ id: string }>("POST", "/api/sessions", { autonomy: "trusted" })).body.id;
    const minted = await a.api<{ secret: string }>("POST", "/api/browser-sessions", { userAgent: "failover follow-on test" });
    const cookie = `berth_browser=${minted.body.secret}`;

    // A background process printing a counter until told to stop: what it writes is known from its last number.
    const started = await a.api<ToolReply & { runId?: string }>("POST", `/api/sessions/${session}/tools/bash`, {
      args: { action: "start", command: "i=0; while [ ! -e stop-counter ]; do echo count-$i; i=$((i+1)); sleep 0.02; done; echo done-$i" },
    });
    expect(started.body.ok).toBe(true);
    const processRun = started.body.runId!;
    const processId = String(started.body.details?.["processId"]);
    // One in a session with a declared env, printing its secret: its logs hold the mask, never the value.
    const withEnv = (await a.api<{ id: string }>("POST", "/api/sessions", { autonomy: "trusted", env: { SECRET_ONE: "not-a-real-secret-0123456789" } })).body.id;
    const maskedStart = await a.api<ToolReply & { runId?: string }>("POST", `/api/sessions/${withEnv}/tools/bash`, {
      args: { action: "start", command: "i=0; while [ ! -e stop-masked ]; do echo masked-$SECRET_ONE-$i; i=$((i+1)); sleep 0.02; done" },
    });
    expect(maskedStart.body.ok).toBe(true);
    const maskedRun = maskedStart.body.runId!;
    // One that cannot be followed exactly: its lines alternate stdout and stderr (where a line ends cannot be told
    // from the agent's log).
    const unfollowable: Record<string, string> = {};
    for (const [name, command] of Object.entries({ mixed: "while :; do echo out; echo err >&2; sleep 0.05; done" })) {
      const reply = await a.api<ToolReply & { runId?: string }>("POST", `/api/sessions/${session}/tools/bash`, { args: { action: "start", command } });
      expect(reply.body.ok).toBe(true);
      unfollowable[name] = reply.body.runId!;
    }
    // Followed through B from offset 0 before the kill (B mirrors A's log), and on after it.
    const watcher = await browserSocket(b.url, cookie);
    const shown = received();
    watcher.on("run:output", (event: { runId: string; stream: string; offset: number; data: string }) => {
      if (event.runId === processRun && event.stream === "stdout") shown.take(event.offset, Buffer.from(event.data));
    });
    expect((await call(watcher, "run:subscribe", { runId: processRun, offset: { stdout: 0, stderr: 0 } })).error).toBeNull();

    // A terminal opened through A running a loop, followed through B.
    const opener = await browserSocket(a.url, cookie);
    const terminal = (await call<{ terminalId: string; runId: string }>(opener, "terminal:open", { sessionId: session, cols: 80, rows: 24 })).result;
    await call(opener, "terminal:input", { terminalId: terminal.terminalId, data: "for i in $(seq 1 100000); do echo tick-$i; sleep 0.05; [ -e stop-ticks ] && break; done; exit 0\r" });
    const screen = received();
    let exitCode: number | null | undefined;
    /** A browser's connection to B following the terminal from `offset`, as the IDE attaches: list, then attach. */
    const attach = async (offset: number) => {
      const browser = await browserSocket(b.url, cookie);
      browser.on("terminal:output", (event: { terminalId: string; offset: number; data: Buffer }, ack?: () => void) => {
        if (event.terminalId === terminal.terminalId) screen.take(event.offset, Buffer.from(event.data));
        ack?.();
      });
      browser.on("terminal:exit", (event: { terminalId: string; exitCode: number | null }) => {
        if (event.terminalId === terminal.terminalId) exitCode = event.exitCode;
      });
      expect((await call(browser, "terminal:list", { sessionId: session })).error).toBeNull();
      expect((await call(browser, "terminal:attach", { terminalId: terminal.terminalId, offset })).error).toBeNull();
      return browser;
    };
    // Through B while A holds the session: forwarded to A.
    const before = await attach(0);
    const relayLost = new Promise<string>((resolve) => before.once("disconnect", resolve));
    await waitFor("both running through A", () => Buffer.concat(shown.state.bytes).includes("count-50\n") && Buffer.concat(screen.state.bytes).includes("tick-20\r\n"));

    await a.kill();
    await waitFor("B took the session over", async () => (await b.api<ToolReply>("POST", `/api/sessions/${session}/tools/bash`, { args: { action: "exec", command: "true" } }).catch(() => null))?.body.ok === true, LEASE_MS + 20_000);

    // What could not be followed ended as before, the reason in its cause, sealed from its log as stored.
    for (const [name, runId] of Object.entries(unfollowable)) {
      await waitFor(`the ${name} run to be ended by the failover`, async () => (await runOf(runId)).status !== "running");
      const run = await runOf(runId);
      expect(run, name).toMatchObject({ status: "interrupted", outcome: "interrupted" });
      expect(run.cause).toMatch(/^runner_failover: killed in its sandbox at failover from runner fo-a-.* \(not followed on: stdout and stderr interleave at byte \d+/);
      await expectSealed(run, await storedLog(runId));
    }
    // Both followed runs are still running, now B's, and their logs grow past what A had stored.
    const atTakeOver = { process: shown.state.offset, terminal: screen.state.offset };
    expect(await runOf(processRun)).toMatchObject({ status: "running" });
    expect(await runOf(terminal.runId)).toMatchObject({ status: "running" });
    await waitFor("the process's output after the take-over", () => shown.state.offset > atTakeOver.process + 200);
    // The browser's connection was relayed to A: B closes it as a lost transport, the reason a socket.io client (the
    // IDE's) reconnects on by itself; it reconnects (to B, which holds the session now) and attaches again from the
    // offset it has, as the IDE does.
    expect(await relayLost).toBe("transport close");
    await attach(screen.state.offset);
    await waitFor("the terminal's output after the take-over", () => screen.state.offset > atTakeOver.terminal + 100);
    expect((await b.api<ToolReply>("POST", `/api/sessions/${session}/tools/bash`, { args: { action: "exec", command: "touch stop-counter stop-ticks" } })).body.ok).toBe(true);

    // The process ends on its own: succeeded, its log exactly what it wrote (every number once, in order).
    await waitFor("the process's run to end", async () => (await runOf(processRun)).status !== "running");
    const ended = await runOf(processRun);
    expect(ended).toMatchObject({ status: "finished", outcome: "succeeded", exitCode: 0, cause: null });
    const log = await storedLog(processRun);
    const last = Number(/done-(\d+)\n$/.exec(log.toString())?.[1]);
    const wrote = Buffer.from(`${Array.from({ length: last }, (_, i) => `count-${i}\n`).join("")}done-${last}\n`);
    expect(sha256(log)).toBe(sha256(wrote));
    await waitFor("the client to have the whole log", () => shown.state.offset >= log.length);
    expect(shown.state.problem).toBe("");
    expect(sha256(Buffer.concat(shown.state.bytes))).toBe(sha256(wrote));
    await expectSealed(ended, log);
    const processes = await b.api<ToolReply>("POST", `/api/sessions/${session}/tools/bash`, { args: { action: "list" } });
    const statuses = processes.body.details?.["processes"] as { processId: string; status: string }[];
    expect(statuses.find((p) => p.processId === processId)?.status).toBe("EXITED");
    expect(statuses.filter((p) => p.status === "RUNNING")).toEqual([]);

    // The masked one was followed on too, masked as on A: every line once, in order, the value never in its log.
    expect(await runOf(maskedRun)).toMatchObject({ status: "running" });
    expect((await b.api<ToolReply>("POST", `/api/sessions/${withEnv}/tools/write_file`, { args: { path: "stop-masked", content: "" } })).body.ok).toBe(true);
    await waitFor("the masked run to end", async () => (await runOf(maskedRun)).status !== "running");
    const maskedEnded = await runOf(maskedRun);
    expect(maskedEnded).toMatchObject({ status: "finished", outcome: "succeeded", exitCode: 0 });
    const maskedLog = await storedLog(maskedRun);
    const lines = maskedLog.toString().split("\n").slice(0, -1);
    expect(lines.length).toBeGreaterThan(100);
    expect(lines).toEqual(lines.map((_, i) => `masked-${REDACTED}-${i}`));
    await expectSealed(maskedEnded, maskedLog);

    // The terminal's shell exits: the run succeeded, the client got the whole transcript once, every tick once.
    await waitFor("the terminal's run to end", async () => (await runOf(terminal.runId)).status !== "running");
    const closed = await runOf(terminal.runId);
    expect(closed).toMatchObject({ status: "finished", outcome: "succeeded", exitCode: 0 });
    const transcript = await storedLog(terminal.runId);
    await waitFor("the terminal's exit on the client", () => exitCode !== undefined && screen.state.offset >= transcript.length);
    expect(screen.state.problem).toBe("");
    expect(sha256(Buffer.concat(screen.state.bytes))).toBe(sha256(transcript));
    const ticks = [...transcript.toString().matchAll(/^tick-(\d+)\r$/gm)].map((m) => Number(m[1]));
    expect(ticks.length).toBeGreaterThan(20);
    expect(ticks).toEqual(Array.from({ length: ticks.length }, (_, i) => i + 1));
    await expectSealed(closed, transcript);
  }, 180_000);
});
