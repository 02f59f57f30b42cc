// npm run bench:stream — runs printing 100 MB watched live by socket.io clients, the runner in its own process.
// Alternated rounds of one client alone (the baseline) and of 50 clients; each round is a new run. Checks every
// client got every byte in order (sha256 against the log the runner stored), that a client which disconnects and
// resumes from its offset misses nothing, and measures the fan-out, the runner's memory, and reading the finished
// 100 MB log the way the IDE's run page does against the plain streamed download of it. The clients live in worker
// threads (stream-bench-clients.mjs), so the bench's own JSON, hashing and sockets do not share one thread. The
// ceiling, in alternated rounds of its own: a bare ws server in its own process (stream-pipe-server.mjs) sending the
// same stored 100 MB in the agent's chunk size to 50 bare ws clients in the same worker threads, hashed the same way.
// Each round also says where the machine's CPU went (CPU seconds, which the load moves less than times): the serving
// process, the client threads, the run's container with its shim and dockerd (the output's way into the runner), and
// the rest (the bench's own thread, and whatever else the machine runs); the GC pauses of the runner and the clients
// (wall time, so longer on a loaded machine); and how many output events a client got. Beside the client threads,
// their helper threads: the bench process's others (V8's concurrent and parallel GC, the libuv pool), which work for
// the clients (they were in the rest before; a 50-client round's are ~1.1 s, the pipe's clients' ~0.6 s).
//
//   BENCH_ROUNDS          fan-out rounds of each kind (default 3)
//   BENCH_CLIENT_THREADS  worker threads the clients are spread over (default: the number of CPUs)
//   BENCH_RUNNER          the runner bundle to start (default apps/runner/dist/main.mjs; another build for a before/after)
//   BENCH_ENCODING        how the clients subscribe: binary (default, as the IDE does) or text
//   BENCH_RUNNER_ARGS     node options for the runner's process, space-separated (e.g. --cpu-prof --cpu-prof-dir=/tmp/p)
import { execFileSync, spawn } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { Worker } from "node:worker_threads";
import { migrate } from "../testing/runner-test-kit";

const ROOT = path.resolve(import.meta.dirname, "../../../..");
const TOKEN = "stream-bench-admin-token-0123456789";
const PORT = 4391;
const PIPE_PORT = 4392;
/** The size of an output chunk off the agent channel, the pipe's frame size. */
const AGENT_CHUNK = 64 * 1024;
const CLIENTS = 50;
const BYTES = 100 * 1024 * 1024;
const MB = 1024 * 1024;
const ROUNDS = Math.max(1, Number(process.env.BENCH_ROUNDS || 3));
const CLIENT_THREADS = Math.max(1, Number(process.env.BENCH_CLIENT_THREADS || os.cpus().length));
const ENCODING = process.env.BENCH_ENCODING === "text" ? "text" : "binary";
const RUNNER = path.resolve(process.env.BENCH_RUNNER || path.join(ROOT, "apps/runner/dist/main.mjs"));
const LOG_READ_ROUNDS = 5;

const loadavg = () =>
  os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(" ");
const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};

/**
 * CPU seconds a process has used (user + system), from /proc: a figure the machine's load moves less than a time.
 * `pid/task/tid` for one of its threads.
 */
function cpuOf(pid: number | string): number {
  const fields = fs.readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
  // utime and stime are fields 14 and 15 of stat, in clock ticks (100 a second on Linux).
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/** CPU seconds the whole machine has used (every process: the container, dockerd, the clients), from /proc/stat. */
function machineCpu(): number {
  // The first line sums every CPU: user nice system idle iowait irq softirq steal, in clock ticks; all but idle and iowait.
  const [user, nice, system, , , irq, softirq, steal] = fs.readFileSync("/proc/stat", "utf8").split("\n")[0]!.split(/\s+/).slice(1).map(Number);
  return (user! + nice! + system! + irq! + softirq! + steal!) / 100;
}

/** A process's stat fields after its name: ppid is [1], utime/stime [11]/[12], cutime/cstime (its reaped children) [13]/[14]. */
function statOf(pid: number): string[] | null {
  try {
    return fs.readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
  } catch {
    return null;
  }
}

/** The process tree under `root` (its own CPU and its reaped children's, and each live descendant's), in CPU seconds. */
function treeCpu(root: number): number {
  const children = new Map<number, number[]>();
  for (const entry of fs.readdirSync("/proc")) {
    const pid = Number(entry);
    const ppid = pid ? Number(statOf(pid)?.[1]) : NaN;
    if (ppid) children.set(ppid, [...(children.get(ppid) ?? []), pid]);
  }
  let ticks = 0;
  for (const stack = [root]; stack.length > 0; ) {
    const pid = stack.pop()!;
    const fields = statOf(pid);
    if (fields) ticks += Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14]);
    stack.push(...(children.get(pid) ?? []));
  }
  return ticks / 100;
}

/**
 * What moving the run's output into the runner costs outside it: the session's container (the command, the agent),
 * its containerd shim (which copies its stdout) and dockerd (which copies it again into the attach stream), in CPU
 * seconds so far. dockerd is found through /var/run/docker.pid; 0 for what cannot be read.
 */
function ingestionCpuOf(containerPid: number): () => number {
  const shim = Number(statOf(containerPid)?.[1]);
  const dockerd = Number(fs.existsSync("/var/run/docker.pid") ? fs.readFileSync("/var/run/docker.pid", "utf8") : 0);
  return () => treeCpu(containerPid) + (shim ? cpuOf(shim) : 0) + (dockerd ? cpuOf(dockerd) : 0);
}

/**
 * CPU seconds of the bench process's threads other than its main thread (this one): the client threads, and the
 * helper threads that work for them (V8's concurrent and parallel GC, the libuv pool). The process's figure keeps
 * the time of threads that have exited, so the round's client threads are in it after they end.
 */
const besideMainThread = () => cpuOf(process.pid) - cpuOf(`${process.pid}/task/${process.pid}`);

function rssOf(pid: number): number {
  const status = fs.readFileSync(`/proc/${pid}/status`, "utf8");
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? 0) * 1024;
}

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "berth-stream-bench-"));
migrate(dataDir);
// The memory probe answers process.memoryUsage() over IPC, after a forced GC when asked (memory-probe.mjs).
const RUNNER_ARGS = (process.env.BENCH_RUNNER_ARGS ?? "").split(" ").filter(Boolean);
const runner = spawn(process.execPath, [...RUNNER_ARGS, "--expose-gc", "--import", path.join(import.meta.dirname, "memory-probe.mjs"), RUNNER], {
  env: {
    ...process.env,
    BERTH_DATA_DIR: dataDir,
    BERTH_RUNNER_PORT: String(PORT),
    BERTH_ADMIN_TOKEN: TOKEN,
    BERTH_WARM_POOL: "0",
    BERTH_LOG_LEVEL: "warn",
    BERTH_RUNNER_ID: "stream-bench",
  },
  stdio: ["ignore", "pipe", "inherit", "ipc"],
});
const pipe = spawn(process.execPath, [path.join(import.meta.dirname, "stream-pipe-server.mjs"), String(PIPE_PORT)], { stdio: ["ignore", "inherit", "inherit", "ipc"] });
const pipeListening = new Promise<void>((resolve) => pipe.once("message", () => resolve()));
/** `gcMs`: the runner's GC pauses since it started. */
type Memory = { rss: number; heapTotal: number; heapUsed: number; external: number; arrayBuffers: number; gcMs: number };
let probes = 0;
const probing = new Map<number, (memory: Memory) => void>();
runner.on("message", (message: Memory & { type?: string; id?: number }) => {
  if (message.type !== "memory" || message.id === undefined) return;
  probing.get(message.id)?.(message);
  probing.delete(message.id);
});
/** The runner's memory, after a full GC when `gc` (what is retained, not garbage waiting for a collection). */
const memoryOf = (gc: boolean) =>
  new Promise<Memory>((resolve) => {
    const id = ++probes;
    probing.set(id, resolve);
    runner.send({ type: "memory", id, gc });
  });
const mb = (bytes: number) => (bytes / MB).toFixed(0);
const memoryLine = (m: Memory) => `rss ${mb(m.rss)}, heap ${mb(m.heapUsed)} of ${mb(m.heapTotal)}, external ${mb(m.external)} (array buffers ${mb(m.arrayBuffers)}) MB`;
const base = `http://127.0.0.1:${PORT}`;
const auth = { authorization: `Bearer ${TOKEN}` };
const api = async <T>(method: string, route: string, body?: unknown): Promise<T> => {
  const response = await fetch(`${base}${route}`, {
    method,
    headers: { ...auth, "content-type": "application/json" },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  // DELETE answers 204 with no body: only a body is JSON.
  const text = await response.text();
  if (!response.ok) throw new Error(`${method} ${route}: ${response.status} ${text.slice(0, 200)}`);
  return (text ? JSON.parse(text) : undefined) as T;
};

/**
 * CPU seconds of the round: `cpu` the serving process's (the runner, or the pipe's server), `clientCpu` the client
 * threads', `machineCpu` every process's (the run's container and dockerd too). `gcMs`: the serving process's GC
 * pauses (the runner's; none taken for the pipe's server), `clientGcMs` the client threads'. `events`: output
 * events (pipe messages) a client got, the median.
 */
type Round = {
  clients: number;
  seconds: number;
  inOrder: boolean;
  resumed: boolean;
  firstByteMs: number;
  runId: string;
  cpu: number;
  clientCpu: number;
  /** The bench process's helper threads (V8's GC, libuv's pool): besideMainThread less the client threads. */
  helperCpu: number;
  machineCpu: number;
  /** The run's container, its shim and dockerd (ingestionCpuOf); 0 in the pipe's rounds. */
  ingestionCpu: number;
  gcMs: number;
  clientGcMs: number;
  events: number;
};
/** `resumedAt`: the offset a client that dropped out resumed from (0 for the others). */
type ClientResult = { digest: string; firstByteAt?: number; resumedAt: number; events: number };
/** One worker thread's clients, with the CPU seconds and GC pauses of the thread. */
type ThreadResult = { clients: ClientResult[]; cpu: number; gcMs: number };

type Pipe = { url: string; total: number; file: string; chunk: number };

/**
 * `clients` socket.io clients in one worker thread, following `runId`'s stdout from 0; the first drops and resumes
 * at `dropAt`. With `pipe`, bare ws clients of the ceiling instead. The thread starts without this process's node
 * options (`execArgv: []`): a worker inherits them, and with them tsx's loader, whose heap every major GC of the
 * thread then marks; the 50 clients' external-memory collections cost 2.2 s of pauses and 3.4 s of helper threads
 * with it, 0.6 and 1.0 s without, for the same 5 GB (a bare socket.io server, 2026-12-04).
 */
function clientThread(runId: string, clients: number, dropAt: number, pipe?: Pipe): Promise<ThreadResult> {
  const worker = new Worker(new URL("./stream-bench-clients.mjs", import.meta.url), {
    workerData: { base, token: TOKEN, runId, bytes: BYTES, clients, dropAt, encoding: ENCODING, pipe },
    execArgv: [],
  });
  return new Promise<ThreadResult>((resolve, reject) => {
    worker.once("message", (message: ({ type: "done" } & ThreadResult) | { type: "error"; message: string }) =>
      message.type === "done" ? resolve(message) : reject(new Error(message.message)),
    );
    worker.once("error", reject);
  }).finally(() => void worker.terminate());
}

/**
 * One run printing 100 MB, watched live by `clients` sockets from offset 0, spread over the worker threads. With
 * more than one client, one of them drops out part-way and resumes from its last offset on a new connection.
 */
async function fanOutRound(sessionId: string, clients: number): Promise<Round> {
  // The command waits for the watchers to subscribe, then prints 100 MB.
  const cpuBefore = cpuOf(runner.pid!);
  const machineBefore = machineCpu();
  const besideBefore = besideMainThread();
  const ingestionBefore = ingestionCpu();
  const gcBefore = (await memoryOf(false)).gcMs;
  const requestedAt = performance.timeOrigin + performance.now();
  const { runId } = await api<{ runId: string }>("POST", `/api/sessions/${sessionId}/tools/bash`, {
    args: { action: "start", command: `sleep 3; yes 0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTU | head -c ${BYTES}` },
  });
  const threads = await Promise.all(sharesOf(clients).map((share, i) => clientThread(runId, share, i === 0 && clients > 1 ? 20 * MB : 0)));
  const finishedAt = performance.timeOrigin + performance.now();
  const cpu = cpuOf(runner.pid!) - cpuBefore;
  const machine = machineCpu() - machineBefore;
  const beside = besideMainThread() - besideBefore;
  const ingestion = ingestionCpu() - ingestionBefore;
  const gcMs = (await memoryOf(false)).gcMs - gcBefore;
  const results = threads.flatMap((t) => t.clients);
  const stored = crypto.createHash("sha256").update(fs.readFileSync(path.join(dataDir, "runs", runId, "stdout.log"))).digest("hex");
  const digests = new Set(results.map((r) => r.digest));
  // The command sleeps 3 s before printing, so a first byte is due 3 s after the start request.
  const firstBytes = results.map((r) => (r.firstByteAt ?? finishedAt) - requestedAt - 3000);
  const inOrder = results.length === clients && digests.size === 1 && digests.has(stored);
  // The client that dropped out is one of those checked: resumed means it came back mid-log and still matched.
  const resumed = clients === 1 || (inOrder && results.some((r) => r.resumedAt > 0));
  return { clients, runId, seconds: (finishedAt - requestedAt - 3000) / 1000, inOrder, resumed, firstByteMs: median(firstBytes), cpu, machineCpu: machine, ingestionCpu: ingestion, gcMs, ...ofThreads(threads, beside) };
}

/**
 * The client threads' CPU seconds and GC pauses in all, the helper threads' CPU (`beside`, the process's CPU beside
 * its main thread in the round, less the client threads'), and the median of their clients' event counts.
 */
const ofThreads = (threads: ThreadResult[], beside: number) => ({
  clientCpu: threads.reduce((n, t) => n + t.cpu, 0),
  helperCpu: Math.max(0, beside - threads.reduce((n, t) => n + t.cpu, 0)),
  clientGcMs: threads.reduce((n, t) => n + t.gcMs, 0),
  events: median(threads.flatMap((t) => t.clients.map((c) => c.events))),
});

const sharesOf = (clients: number) => {
  const threads = Math.min(CLIENT_THREADS, clients);
  return Array.from({ length: threads }, (_, i) => Math.floor(clients / threads) + (i < clients % threads ? 1 : 0));
};

/** The ceiling: the bare ws server sends a stored run's stdout (`runId`'s) to 50 bare ws clients in the same threads. */
async function pipeRound(runId: string): Promise<Round> {
  const file = path.join(dataDir, "runs", runId, "stdout.log");
  const started = new Promise<number>((resolve) => pipe.once("message", (message: { at: number }) => resolve(message.at)));
  const spec: Pipe = { url: `ws://127.0.0.1:${PIPE_PORT}`, total: CLIENTS, file, chunk: AGENT_CHUNK };
  const cpuBefore = cpuOf(pipe.pid!);
  const machineBefore = machineCpu();
  const besideBefore = besideMainThread();
  const threads = await Promise.all(sharesOf(CLIENTS).map((share) => clientThread(runId, share, 0, spec)));
  const cpu = cpuOf(pipe.pid!) - cpuBefore;
  const machine = machineCpu() - machineBefore;
  const beside = besideMainThread() - besideBefore;
  const results = threads.flatMap((t) => t.clients);
  const finishedAt = performance.timeOrigin + performance.now();
  const startedAt = await started;
  const stored = crypto.createHash("sha256").update(fs.readFileSync(file)).digest("hex");
  const inOrder = results.length === CLIENTS && results.every((r) => r.digest === stored);
  const firstBytes = results.map((r) => (r.firstByteAt ?? finishedAt) - startedAt);
  return { clients: CLIENTS, runId, seconds: (finishedAt - startedAt) / 1000, inOrder, resumed: true, firstByteMs: median(firstBytes), cpu, machineCpu: machine, ingestionCpu: 0, gcMs: 0, ...ofThreads(threads, beside) };
}

/** The whole body of a response, hashed as it streams in. */
async function drain(response: Response): Promise<{ bytes: number; sha256: string }> {
  if (!response.ok || !response.body) throw new Error(`${response.url}: ${response.status}`);
  const hash = crypto.createHash("sha256");
  let bytes = 0;
  for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
    hash.update(chunk);
    bytes += chunk.length;
  }
  return { bytes, sha256: hash.digest("hex") };
}

/**
 * The finished run's log as the IDE's run page reads it (apps/web/components/runs/use-run-stream.ts): the
 * combined log as one streamed range from offset 0, its times beside it in one small request.
 */
const timesMs: number[] = [];
async function readLikeTheIde(runId: string): Promise<{ bytes: number; sha256: string }> {
  const started = performance.now();
  const [got] = await Promise.all([
    fetch(`${base}/api/runs/${runId}/logs?stream=combined&download=1`, { headers: { ...auth, range: "bytes=0-" } }).then(drain),
    api<{ times: [number, number][] }>("GET", `/api/runs/${runId}/logs/times?stream=combined`).then(() => timesMs.push(performance.now() - started)),
  ]);
  return got;
}

/** The same log as one streamed download (`download=1`): the floor for reading it over HTTP. */
const download = async (runId: string) => drain(await fetch(`${base}/api/runs/${runId}/logs?stream=combined&download=1`, { headers: auth }));

/** Alternated rounds of the IDE's read and the download of the same log; medians in ms, and whether each read every byte. */
async function logReadRounds(runId: string): Promise<{ ide: number; download: number; exact: boolean }> {
  const stored = crypto.createHash("sha256").update(fs.readFileSync(path.join(dataDir, "runs", runId, "stdout.log"))).digest("hex");
  const ide: number[] = [];
  const plain: number[] = [];
  let exact = true;
  for (let round = 0; round < LOG_READ_ROUNDS; round++) {
    for (const [read, samples] of round % 2 ? ([[download, plain], [readLikeTheIde, ide]] as const) : ([[readLikeTheIde, ide], [download, plain]] as const)) {
      const started = performance.now();
      const got = await read(runId);
      samples.push(performance.now() - started);
      exact &&= got.bytes === BYTES && got.sha256 === stored;
    }
  }
  return { ide: median(ide), download: median(plain), exact };
}

/** The machine's CPU in a round outside the serving process, the clients (with their helpers) and the run's container. */
const restOf = (r: Round) => r.machineCpu - r.cpu - r.clientCpu - r.helperCpu - r.ingestionCpu;
/** A round's CPU seconds as a line: the serving process's, the clients', the rest of the machine's (the run's container, dockerd, the bench's own thread). */
const cpuLine = (r: Round) =>
  `CPU s: serving ${r.cpu.toFixed(2)}${r.gcMs ? ` (GC ${(r.gcMs / 1000).toFixed(2)})` : ""}, clients ${r.clientCpu.toFixed(2)} (GC ${(r.clientGcMs / 1000).toFixed(2)}) + their helper threads ${r.helperCpu.toFixed(2)}, ${r.ingestionCpu ? `container + shim + dockerd ${r.ingestionCpu.toFixed(2)}, ` : ""}rest ${restOf(r).toFixed(2)}; ${r.events} events a client`;

let sessionId: string | null = null;
let ingestionCpu: () => number = () => 0;
let sampler: NodeJS.Timeout | undefined;
try {
  for (let i = 0; i < 100; i++) {
    try {
      if ((await fetch(`${base}/healthz`)).ok) break;
    } catch {
      /* starting */
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  await pipeListening;
  const session = await api<{ id: string }>("POST", "/api/sessions", { autonomy: "yolo" });
  sessionId = session.id;
  // The session's container, by the label the runner puts on it; its first process is the one docker-init runs.
  try {
    const containerId = execFileSync("docker", ["ps", "-q", "--filter", `label=berth.session=${session.id}`], { encoding: "utf8" }).trim();
    ingestionCpu = ingestionCpuOf(Number(execFileSync("docker", ["inspect", "--format", "{{.State.Pid}}", containerId], { encoding: "utf8" }).trim()));
  } catch (error) {
    // No docker CLI, or another engine: the figure is left out, the rounds still run.
    console.error(`• the session's container was not found (label berth.session=${session.id}; ${String(error).split("\n")[0]}): its CPU is counted in the rest`);
  }
  const loadBefore = loadavg();
  const memoryBefore = await memoryOf(true);
  console.error(`• runner before the rounds (after a GC): ${memoryLine(memoryBefore)}`);
  const rssBefore = rssOf(runner.pid!);
  let peakRss = rssBefore;
  // What the memory was made of at the highest RSS seen (sampled without a GC).
  let atPeak: Memory | null = null;
  sampler = setInterval(() => {
    peakRss = Math.max(peakRss, rssOf(runner.pid!));
    void memoryOf(false).then((m) => {
      if (!atPeak || m.rss > atPeak.rss) atPeak = m;
    });
  }, 100);

  const rounds: Round[] = [];
  const pipeRounds: Round[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    // The pipe sends the first run's stored log, so a socket.io round comes first in the first round.
    for (const kind of round % 2 ? (["pipe", CLIENTS, 1] as const) : ([1, CLIENTS, "pipe"] as const)) {
      if (kind === "pipe") {
        const result = await pipeRound(rounds[0]!.runId);
        pipeRounds.push(result);
        console.error(`• round ${round + 1}, the pipe (bare ws), ${CLIENTS} clients: ${((BYTES / MB) / result.seconds).toFixed(1)} MB/s each, ${cpuLine(result)}, load ${loadavg()}`);
        continue;
      }
      const result = await fanOutRound(session.id, kind);
      rounds.push(result);
      const [live, collected] = [await memoryOf(false), await memoryOf(true)];
      console.error(`• round ${round + 1}, ${kind} client(s): ${((BYTES / MB) / result.seconds).toFixed(1)} MB/s each, ${cpuLine(result)}, load ${loadavg()}; runner ${memoryLine(live)}; after a GC ${memoryLine(collected)}`);
    }
  }
  clearInterval(sampler);
  const many = rounds.filter((r) => r.clients === CLIENTS);
  const single = rounds.filter((r) => r.clients === 1);
  const perClient = median(many.map((r) => BYTES / MB / r.seconds));
  const alone = median(single.map((r) => BYTES / MB / r.seconds));
  const inAll = perClient * CLIENTS;
  const pipeInAll = median(pipeRounds.map((r) => BYTES / MB / r.seconds)) * CLIENTS;
  const pipeExact = pipeRounds.every((r) => r.inOrder);
  const runnerCpu = median(many.map((r) => r.cpu));
  const aloneCpu = median(single.map((r) => r.cpu));
  const pipeCpu = median(pipeRounds.map((r) => r.cpu));
  const medianOf = (rs: Round[], f: (r: Round) => number) => median(rs.map(f));
  const machineOf = (rs: Round[]) => `${medianOf(rs, (r) => r.machineCpu).toFixed(2)} s in all: serving ${medianOf(rs, (r) => r.cpu).toFixed(2)}, clients ${medianOf(rs, (r) => r.clientCpu).toFixed(2)} + their helper threads ${medianOf(rs, (r) => r.helperCpu).toFixed(2)}, container + shim + dockerd ${medianOf(rs, (r) => r.ingestionCpu).toFixed(2)}, rest ${medianOf(rs, restOf).toFixed(2)}`;
  const inOrder = rounds.every((r) => r.inOrder);
  const resumed = many.every((r) => r.resumed);
  const firstByte = median(many.map((r) => r.firstByteMs));
  const growthMb = (peakRss - rssBefore) / MB;
  const memoryAfter = await memoryOf(true);
  const retainedMb = (memoryAfter.heapUsed + memoryAfter.external - memoryBefore.heapUsed - memoryBefore.external) / MB;

  const reads = await logReadRounds(many.at(-1)!.runId);
  const readRatio = reads.ide / reads.download;

  console.log(`\nBerth stream bench: 100 MB run output to ${CLIENTS} live socket.io clients and to one alone, ${ROUNDS} alternated rounds each (runner ${path.relative(ROOT, RUNNER)} in its own process, clients in ${CLIENT_THREADS} worker threads, ${ENCODING} output events)\n`);
  console.log(`load average: before ${loadBefore}, after ${loadavg()} (${os.cpus().length} CPUs)`);
  console.log(`every client got every byte in order:   ${inOrder ? "yes" : "NO"} (sha256 against the stored log, every round, ${many.length * CLIENTS + single.length} clients)`);
  console.log(`client that disconnected and resumed:   ${resumed ? "resumed from its offset, same checksum" : "NO"}`);
  console.log(`fan-out, ${CLIENTS} clients (median):       ${inAll.toFixed(0)} MB/s in all, ${perClient.toFixed(1)} MB/s each (one client alone: ${alone.toFixed(1)} MB/s)`);
  console.log(`the pipe (bare ws, ${CLIENTS} clients, median):  ${pipeInAll.toFixed(0)} MB/s in all (${AGENT_CHUNK / 1024} KiB frames; every byte: ${pipeExact ? "yes" : "NO"}); the fan-out is ${(inAll / pipeInAll).toFixed(2)}x of it`);
  console.log(`CPU of the serving process per round (median): the runner ${runnerCpu.toFixed(2)} s with ${CLIENTS} clients (${aloneCpu.toFixed(2)} s with one), the pipe's server ${pipeCpu.toFixed(2)} s`);
  console.log(`CPU of the whole machine per round (median): ${CLIENTS} clients ${machineOf(many)}; the pipe ${machineOf(pipeRounds)}; one client ${machineOf(single)}`);
  console.log(`GC per round (median): the runner ${(medianOf(many, (r) => r.gcMs) / 1000).toFixed(2)} s with ${CLIENTS} clients (${(medianOf(single, (r) => r.gcMs) / 1000).toFixed(2)} s with one); the client threads ${(medianOf(many, (r) => r.clientGcMs) / 1000).toFixed(2)} s (the pipe's ${(medianOf(pipeRounds, (r) => r.clientGcMs) / 1000).toFixed(2)} s)`);
  console.log(`events a client got (median): ${medianOf(many, (r) => r.events)} (${(BYTES / 1024 / medianOf(many, (r) => r.events)).toFixed(0)} KiB each); the pipe's ${medianOf(pipeRounds, (r) => r.events)} messages`);
  console.log(`time to first byte (median, start request + 3 s sleep → client): ${firstByte.toFixed(0)} ms`);
  console.log(`runner RSS: before ${(rssBefore / MB).toFixed(0)} MB, peak ${(peakRss / MB).toFixed(0)} MB, growth ${growthMb.toFixed(0)} MB (target < 100 MB)`);
  const peak = atPeak as Memory | null;
  if (peak) console.log(`runner memory at its highest sampled RSS: ${memoryLine(peak)}`);
  console.log(`runner memory after a GC: before ${memoryLine(memoryBefore)}; after the rounds ${memoryLine(memoryAfter)} (heap + external retained: ${retainedMb.toFixed(0)} MB)`);
  console.log(
    `100 MB log read as the IDE reads it:    ${reads.ide.toFixed(0)} ms, streamed download ${reads.download.toFixed(0)} ms (${readRatio.toFixed(2)}x; medians of ${LOG_READ_ROUNDS} alternated rounds; every byte: ${reads.exact ? "yes" : "NO"}; its times request alone ${median(timesMs).toFixed(0)} ms)`,
  );
  for (const figure of [
    { figure: "every client got every byte in order", value: inOrder && resumed ? 1 : 0, unit: "", target: `1 (all ${CLIENTS} clients, resume included)`, ok: inOrder && resumed },
    { figure: `live output in all, ${CLIENTS} clients`, value: inAll, unit: "MB/s", baseline: "bare ws broadcast, the pipe", baselineValue: pipeInAll, target: "≥ 600 MB/s", ok: inAll >= 600 },
    { figure: `live output per client, ${CLIENTS} clients`, value: perClient, unit: "MB/s", baseline: "one client alone", baselineValue: alone },
    { figure: `runner CPU per 100 MB to ${CLIENTS} clients`, value: runnerCpu, unit: "s", baseline: "the pipe's server", baselineValue: pipeCpu },
    { figure: `client threads' CPU per 100 MB to ${CLIENTS} clients`, value: medianOf(many, (r) => r.clientCpu), unit: "s", baseline: "the pipe's clients", baselineValue: medianOf(pipeRounds, (r) => r.clientCpu) },
    { figure: `their helper threads' CPU (V8's GC) per 100 MB to ${CLIENTS} clients`, value: medianOf(many, (r) => r.helperCpu), unit: "s", baseline: "the pipe's clients'", baselineValue: medianOf(pipeRounds, (r) => r.helperCpu) },
    { figure: "time to first byte (median)", value: firstByte, unit: "ms" },
    { figure: "runner RSS growth", value: growthMb, unit: "MB", target: "< 100 MB", ok: growthMb < 100 },
    { figure: "runner heap + external retained after the rounds (after a GC)", value: retainedMb, unit: "MB" },
    { figure: "100 MB log read as the IDE reads it", value: reads.ide, unit: "ms", baseline: "streamed download", baselineValue: reads.download, target: "≤ 1.5x", ok: reads.exact && readRatio <= 1.5 },
  ])
    console.log(`bench-figure ${JSON.stringify(figure)}`);
} catch (error) {
  console.error("stream bench failed:", error);
  process.exitCode = 1;
} finally {
  clearInterval(sampler);
  // The session's workspace is mounted while it lives: removed first, or the data folder cannot be.
  if (sessionId) await api("DELETE", `/api/sessions/${sessionId}`).catch(() => undefined);
  runner.kill("SIGTERM");
  pipe.kill("SIGTERM");
  await new Promise((r) => runner.once("exit", r));
  fs.rmSync(dataDir, { recursive: true, force: true });
}
