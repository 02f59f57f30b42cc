import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { io as connect, type Socket } from "socket.io-client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ChildRunner } from "../testing/child-runner";
import { TEST_ADMIN_TOKEN } from "../testing/runner-test-kit";
import { startChildCluster, type ChildCluster } from "../testing/child-cluster";

// The Done-when of issue 20 (docs/scale-out.md): two runners as child processes on one PostgreSQL database and one
// Redis, two Docker engines (the local one and a dockerd in a network namespace over mutual TLS), nginx in front.
// Each step below is one the issue names; they run in order on the same cluster.

type Health = { ok: boolean; docker: { ok: boolean; hosts?: { name: string; ok: boolean; sessions: number }[] } };
type Session = { id: string; status: string };
type ToolReply = { ok: boolean; runId?: string; output?: string; details?: Record<string, unknown>; error?: { code: string; message: string } };
type Parked = { status: "parked"; approvalId: string; sha256: string };
type Run = { id: string; status: string; outcome: string | null; cause: string | null; receiptId: string | null; kind?: string };

let cluster: ChildCluster;
const sockets: Socket[] = [];
beforeAll(async () => {
  cluster = await startChildCluster({ name: "cl", env: { BERTH_SESSION_LEASE_MS: "5000", BERTH_WARM_POOL: "0" } });
}, 300_000);
afterAll(async () => {
  for (const socket of sockets) socket.disconnect();
  // What each runner printed, for a failure's post-mortem (CLUSTER_TEST_LOGS=<dir>).
  const logs = process.env["CLUSTER_TEST_LOGS"];
  if (logs && cluster) for (const runner of [cluster.a, cluster.b]) fs.writeFileSync(path.join(logs, `${runner.runnerId}.log`), runner.output());
  await cluster?.close();
}, 180_000);

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
async function until(what: string, check: () => boolean | Promise<boolean>, ms = 30_000, context = () => ""): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${ms / 1000} s waiting for ${what} ${context()}`);
    await sleep(100);
  }
}

/** A socket.io client of `runner`: the admin token, or a browser sign-in's cookie (terminals need one). */
async function socketOn(runner: ChildRunner, auth: { cookie?: string } = {}): Promise<Socket> {
  const socket = connect(runner.url, {
    ...(auth.cookie ? { extraHeaders: { cookie: auth.cookie } } : { auth: { token: TEST_ADMIN_TOKEN } }),
    transports: ["websocket"],
    forceNew: true,
    reconnection: false,
  });
  sockets.push(socket);
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no socket.io connection to ${runner.runnerId} within 15 s`)), 15_000);
    socket.once("connect", () => (clearTimeout(timer), resolve()));
    socket.once("connect_error", (error) => (clearTimeout(timer), reject(error)));
  });
  return socket;
}

/** An event with an ack `(err, result)`, bounded. */
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

/** What a follower of a run's stdout has shown, in order; a gap or a duplicate fails it. */
function follow(socket: Socket, runId: string, from = 0) {
  const state = { bytes: [] as Buffer[], offset: from, problem: "" };
  socket.on("run:output", (event: { runId: string; stream: string; offset: number; data: string | Buffer }) => {
    if (event.runId !== runId || event.stream !== "stdout") return;
    const data = typeof event.data === "string" ? Buffer.from(event.data) : Buffer.from(event.data);
    if (event.offset !== state.offset) state.problem ||= `gap or duplicate: offset ${event.offset}, expected ${state.offset}`;
    else {
      state.bytes.push(data);
      state.offset += data.length;
    }
  });
  return state;
}

/** A background run started through `owner`, followed from offset 0 by a client of `other`. */
async function startFollowedFrom(other: ChildRunner, owner: ChildRunner, sessionId: string, command: string) {
  const started = await tool(owner, sessionId, "bash", { action: "start", command });
  expect(started.body.ok).toBe(true);
  const runId = started.body.runId!;
  const watcher = await socketOn(other);
  const got = follow(watcher, runId);
  await call(watcher, "run:subscribe", { runId, offset: { stdout: 0, stderr: 0 } });
  return { runId, got, watcher };
}

const sha256 = (bytes: Buffer) => crypto.createHash("sha256").update(bytes).digest("hex");

/** A run's stdout as stored, read through `runner`. */
async function storedLog(runner: ChildRunner, runId: string): Promise<Buffer> {
  const response = await fetch(`${runner.url}/api/runs/${runId}/logs?stream=stdout&download=1`, {
    headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}` },
    signal: AbortSignal.timeout(30_000),
  });
  expect(response.status).toBe(200);
  return Buffer.from(await response.arrayBuffer());
}

const tool = async (runner: ChildRunner, sessionId: string, name: string, args: unknown, query = "") =>
  runner.api<ToolReply & Partial<Parked>>("POST", `/api/sessions/${sessionId}/tools/${name}${query}`, { args });

const viaProxy = async <T>(method: string, route: string, body?: unknown): Promise<{ status: number; body: T }> => {
  const response = await fetch(`${cluster.proxyUrl}${route}`, {
    method,
    headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    signal: AbortSignal.timeout(60_000),
  });
  const text = await response.text();
  return { status: response.status, body: (text ? JSON.parse(text) : null) as T };
};

describe("a cluster: two runners, one PostgreSQL, one Redis, two Docker engines, nginx in front", () => {
  it("starts: each runner drives both engines, and the proxy answers for the runners on one port", async () => {
    for (const runner of [cluster.a, cluster.b]) {
      const health = await runner.api<Health>("GET", "/healthz");
      expect(health.status).toBe(200);
      expect(health.body.docker.hosts?.map((h) => [h.name, h.ok])).toEqual([
        ["local", true],
        ["remote", true],
      ]);
    }
    const proxied = await viaProxy<Health>("GET", "/healthz");
    expect(proxied.status).toBe(200);
    expect(proxied.body.ok).toBe(true);
  });

  it("shares one database: a session created through the proxy is the same session on both runners", async () => {
    const created = await viaProxy<Session>("POST", "/api/sessions", { name: "cluster-shared", autonomy: "trusted" });
    expect(created.status).toBe(201);
    const [onA, onB] = await Promise.all([cluster.a, cluster.b].map((r) => r.api<Session & { name: string }>("GET", `/api/sessions/${created.body.id}`)));
    expect(onA?.status).toBe(200);
    expect(onB?.body).toEqual(onA?.body);
    expect(onB?.body.name).toBe("cluster-shared");
  });

  it("drives a session created through runner A through runner B: tools, approvals, terminal", async () => {
    const { a, b } = cluster;
    const created = await a.api<Session>("POST", "/api/sessions", { name: "driven", autonomy: "default" });
    expect(created.status).toBe(201);
    const sessionId = created.body.id;

    // Tools through B land in A's container: what B writes, A reads, and the other way round.
    expect((await tool(b, sessionId, "write_file", { path: "from-b.txt", content: "written through b\n" })).body.ok).toBe(true);
    expect((await tool(a, sessionId, "read_file", { path: "from-b.txt" })).body.details).toMatchObject({ content: "written through b\n" });
    expect((await tool(a, sessionId, "write_file", { path: "from-a.txt", content: "written through a\n" })).body.ok).toBe(true);
    expect((await tool(b, sessionId, "read_file", { path: "from-a.txt" })).body.details).toMatchObject({ content: "written through a\n" });

    // An approval: a call through B parks (default autonomy asks for an unrecognised command) and waits; the wait is
    // held by A, the owner, and the decision made through B releases it at once.
    const waiting = tool(b, sessionId, "bash", { command: `python3 -c "print(open('from-a.txt').read().upper())"` }, "?wait=60000");
    let pending: { id: string; sha256: string; sessionId: string }[] = [];
    await until("the call parked", async () => {
      pending = (await b.api<{ approvals: typeof pending }>("GET", "/api/approvals?status=pending")).body.approvals.filter((p) => p.sessionId === sessionId);
      return pending.length === 1;
    });
    expect((await b.api("POST", `/api/approvals/${pending[0]!.id}`, { decision: "approve", sha256: pending[0]!.sha256 })).status).toBe(200);
    const released = await waiting;
    expect(released.status).toBe(200);
    expect(released.body.ok).toBe(true);
    expect(released.body.output).toContain("WRITTEN THROUGH A");

    // A terminal through B: a browser sign-in's socket on B, the PTY in A's container.
    const minted = await a.api<{ secret: string }>("POST", "/api/browser-sessions", { userAgent: "cluster test" });
    expect(minted.status).toBe(201);
    const browser = await socketOn(b, { cookie: `berth_browser=${minted.body.secret}` });
    const opened = await call<{ terminalId: string; runId: string }>(browser, "terminal:open", { sessionId, cols: 80, rows: 24 });
    let shown = "";
    browser.on("terminal:output", (event: { terminalId: string; data: Buffer }, ack?: () => void) => {
      if (event.terminalId === opened.terminalId) shown += Buffer.from(event.data).toString("utf8");
      ack?.();
    });
    await call(browser, "terminal:attach", { terminalId: opened.terminalId, offset: 0 });
    await call(browser, "terminal:input", { terminalId: opened.terminalId, data: "cat from-b.txt; echo term-$((6*7))\r" });
    await until("the terminal's output through b", () => /written through b\r\n/.test(shown) && /term-42\r\n/.test(shown), 30_000, () => JSON.stringify(shown.slice(-300)));
    expect(await call(browser, "terminal:close", { terminalId: opened.terminalId })).toMatchObject({ closed: true });
  });

  it("streams a run's live output to a client on the other runner with no gap (sha256 of what it got = of the log)", async () => {
    const { a, b } = cluster;
    const sessionId = (await a.api<Session>("POST", "/api/sessions", { name: "live", autonomy: "trusted" })).body.id;
    const { runId, got } = await startFollowedFrom(b, a, sessionId, "sleep 1; for i in $(seq 1 4000); do echo live-line-$i; done; sleep 0.5; seq 1 2000");
    await until("the run's end", async () => (await b.api<{ run: Run }>("GET", `/api/runs/${runId}`)).body.run.status !== "running", 60_000);
    const stored = await storedLog(a, runId);
    await until("the whole log on b", () => got.offset >= stored.length, 30_000, () => `(${got.offset} of ${stored.length} bytes)`);
    expect(got.problem).toBe("");
    expect(stored.length).toBeGreaterThan(40_000);
    expect(sha256(Buffer.concat(got.bytes))).toBe(sha256(stored));
  });

  it("runner A SIGKILLed mid-run: B adopts its sessions and follows the run on, the client resumes from its offset and loses nothing shown, every run's receipt verifies", async () => {
    const { a, b } = cluster;
    const sessionId = (await a.api<Session>("POST", "/api/sessions", { name: "failover", autonomy: "trusted" })).body.id;
    expect((await tool(a, sessionId, "write_file", { path: "kept.txt", content: "kept across failover\n" })).body.ok).toBe(true);
    // A counter that runs until told to stop: what it wrote is known from its last number.
    const { runId, got, watcher } = await startFollowedFrom(b, a, sessionId, "i=0; while [ ! -e stop-fo ]; do i=$((i+1)); echo fo-$i; sleep 0.01; done");
    await until("output on b before the kill", () => got.offset > 2_000, 30_000, () => `(${got.offset} bytes)`);

    await a.kill();
    // After the 5 s lease B wins the session and adopts its container on whichever engine it is: it answers again,
    // with the workspace as it was.
    await until("b adopted the session", async () => (await tool(b, sessionId, "read_file", { path: "kept.txt" }).catch(() => null))?.body.details?.["content"] === "kept across failover\n", 45_000);
    // The background process still runs in the adopted container: B follows its run on (it used to end it
    // `interrupted` with a runner_failover cause) until it ends on its own, every line it wrote in the log once.
    expect((await b.api<{ run: Run }>("GET", `/api/runs/${runId}`)).body.run.status).toBe("running");
    expect((await tool(b, sessionId, "write_file", { path: "stop-fo", content: "" })).body.ok).toBe(true);
    await until("the run in flight ended", async () => (await b.api<{ run: Run }>("GET", `/api/runs/${runId}`)).body.run.status !== "running", 30_000);
    const run = (await b.api<{ run: Run }>("GET", `/api/runs/${runId}`)).body.run;
    expect(run).toMatchObject({ status: "finished", outcome: "succeeded", cause: null });

    // The client reconnects (a new connection to b) and resumes from the last offset it showed: nothing it was shown
    // is lost or changed, and with the rest it has the log as stored.
    expect(got.problem).toBe("");
    const shown = Buffer.concat(got.bytes);
    watcher.disconnect();
    const stored = await storedLog(b, runId);
    const last = (stored.toString().match(/fo-(\d+)\n$/) ?? [])[1];
    expect(stored.toString()).toBe(Array.from({ length: Number(last) }, (_, i) => `fo-${i + 1}\n`).join(""));
    expect(stored.subarray(0, shown.length).equals(shown)).toBe(true);
    const resumed = await socketOn(b);
    const rest = follow(resumed, runId, shown.length);
    await call(resumed, "run:subscribe", { runId, offset: { stdout: shown.length, stderr: 0 } });
    await until("the rest of the log after the resume", () => rest.offset >= stored.length, 30_000, () => `(${rest.offset} of ${stored.length})`);
    expect(rest.problem).toBe("");
    expect(sha256(Buffer.concat([shown, ...rest.bytes]))).toBe(sha256(stored));

    // Every run of the cluster's sessions has ended with a receipt that verifies against the deployment's keys.
    const runs = (await b.api<{ runs: Run[] }>("GET", "/api/runs?limit=200")).body.runs;
    // The approved bash call and the terminal through b; the live run and the one followed on through the failover (background processes).
    expect(runs.map((r) => r.kind).sort()).toEqual(["bash", "process", "process", "terminal"]);
    for (const r of runs) {
      await until(`run ${r.id} (${r.kind}) sealed`, async () => (await b.api<{ run: Run }>("GET", `/api/runs/${r.id}`)).body.run.receiptId !== null, 30_000);
      const receiptId = (await b.api<{ run: Run }>("GET", `/api/runs/${r.id}`)).body.run.receiptId!;
      const receipt = await b.api("GET", `/api/receipts/${receiptId}`);
      expect(receipt.status).toBe(200);
      const verified = await b.api<{ valid: boolean; reason?: string }>("POST", "/api/receipts/verify", { receipt: receipt.body });
      expect(verified.body, `receipt of run ${r.id} (${r.kind}, ${r.status})`).toMatchObject({ valid: true });
    }
  }, 240_000);
});
