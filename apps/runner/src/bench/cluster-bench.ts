// npm run bench:cluster — two runners (child processes) on one PostgreSQL database and one Redis, two Docker engines
// (the local one and a dockerd in a network namespace over mutual TLS), as apps/runner/src/testing/child-cluster.ts
// starts them. Each figure against a baseline measured in the same run (docs/benchmarks.md, docs/scale-out.md):
//   - a tool call through the runner that does not hold the session (forwarded) against through its owner: the
//     median of all calls of many short alternated rounds (target ≤ 1.3x); beside them, through a bare node:http
//     proxy in front of the owner (bare-http-proxy.mjs): what one hop costs on this machine at the least;
//   - sessions per host by memory: an idle sandbox's memory on each engine, and the sessions the machine's memory
//     holds at that figure (and at the 1 GiB a working session may use);
//   - 100 MB of live output to 50 clients split across the two runners against all 50 on the owner (sha256 of what
//     every client got = the stored log);
//   - failover: the owner SIGKILLed, the time until every one of its sessions answers a tool call through the other
//     runner, against the lease (target ≤ 10 s with a 5 s lease). Last: it kills a runner.
//   - then, with these runners gone, a keystroke's echo in a terminal through the non-owner against through the owner
//     (terminal-forward-bench.ts, in a process of its own: two in-process runners).
// Needs BERTH_TEST_POSTGRES_URL and BERTH_TEST_REDIS_URL (npm test's setup starts both servers), root, the image.
//
//   BENCH_ROUNDS        tool-call rounds of each kind (default 24); BENCH_CALLS calls per round (default 20)
//   BENCH_FANOUT_ROUNDS fan-out rounds of each kind (default 1)
//   BENCH_ONLY          a comma-separated list of the figures to take: tool, sessions, fan-out, failover, terminal
//   BENCH_TOOL_PATHS    tool calls only through these (owner, other, proxy): a CPU profile of one path (BERTH_CHILD_CPU_PROF_DIR)
import crypto from "node:crypto";
import { execFileSync, spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { Worker } from "node:worker_threads";
import { loadavg, median, percentile } from "./bench-stats";
import type { ChildCluster } from "../testing/child-cluster";
import type { ChildRunner } from "../testing/child-runner";

const LEASE_MS = 5_000;
// Many short rounds: the machine's load moves within seconds, and each kind then sees as much of it as the others.
const ROUNDS = Math.max(1, Number(process.env.BENCH_ROUNDS || 24));
const CALLS = Math.max(1, Number(process.env.BENCH_CALLS || 20));
const FANOUT_ROUNDS = Math.max(1, Number(process.env.BENCH_FANOUT_ROUNDS || 1));
const CLIENTS = 50;
const MB = 1024 * 1024;
const BYTES = 100 * MB;
const FAILOVER_SESSIONS = 3;
const FAILOVER_LIMIT_MS = 60_000;
/** The runners' admin token (testing/runner-test-kit.ts), loaded with the kit once the servers are known. */
let adminToken = "";

const figure = (f: Record<string, unknown>) => console.log(`bench-figure ${JSON.stringify(f)}`);

async function ok<T>(reply: Promise<{ status: number; body: T }>, what: string): Promise<T> {
  const { status, body } = await reply;
  if (status >= 300) throw new Error(`${what}: ${status} ${JSON.stringify(body).slice(0, 300)}`);
  return body;
}
const tool = (runner: ChildRunner, sessionId: string, name: string, args: unknown) =>
  ok(runner.api<{ ok: boolean; runId?: string; error?: unknown }>("POST", `/api/sessions/${sessionId}/tools/${name}`, { args }), `${name} through ${runner.runnerId}`);

const CLOCK_TICKS = Number(execFileSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).trim()) || 100;

/** A child runner's CPU time so far, user and system (ms), from /proc: less noisy than latency on a loaded machine. */
function cpuMs(runner: { pid(): number | undefined }): number {
  const stat = fs.readFileSync(`/proc/${runner.pid()}/stat`, "utf8");
  // Fields after the command's closing parenthesis, from the state (3rd): utime is the 14th, stime the 15th.
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS;
}

/** The bare proxy (bare-http-proxy.mjs) in its own process in front of `runner`; resolves with its URL once it listens. */
async function bareProxyInFrontOf(runner: ChildRunner): Promise<{ url: string; pid: () => number | undefined; stop: () => void }> {
  // Profiled beside the runners when they are (BERTH_CHILD_CPU_PROF_DIR, testing/child-runner.ts).
  const profile = process.env.BERTH_CHILD_CPU_PROF_DIR ? ["--cpu-prof", "--cpu-prof-dir", process.env.BERTH_CHILD_CPU_PROF_DIR] : [];
  const child = spawn(process.execPath, [...profile, path.join(import.meta.dirname, "bare-http-proxy.mjs"), runner.url], { stdio: ["ignore", "pipe", "inherit"] });
  const port = await new Promise<string>((resolve, reject) => {
    child.stdout.on("data", (chunk: Buffer) => {
      const match = /listening (\d+)/.exec(String(chunk));
      if (match) resolve(match[1]!);
    });
    child.once("exit", (code) => reject(new Error(`bare-http-proxy.mjs exited with ${code}`)));
  });
  // On SIGINT the proxy exits through process.exit, which writes a profile it was started with.
  return { url: `http://127.0.0.1:${port}`, pid: () => child.pid, stop: () => child.kill("SIGINT") };
}

/**
 * Alternated rounds of CALLS read_file calls through the owner, through the other runner and through a bare
 * node:http proxy in front of the owner (the floor of any one hop on this machine); the median of each kind's
 * calls. And the CPU the forwarding runner spends per forwarded call (less what it spends per call while the owner
 * is called directly: heartbeats, events from Redis) against the owner's per call, over all rounds.
 */
async function toolCallFigure(cluster: ChildCluster): Promise<void> {
  const session = await ok(cluster.a.api<{ id: string }>("POST", "/api/sessions", { name: "bench-tools", autonomy: "trusted" }), "create session");
  await tool(cluster.a, session.id, "write_file", { path: "bench.txt", content: "x".repeat(1024) });
  const proxy = await bareProxyInFrontOf(cluster.a);
  const { apiCall } = await import("../testing/child-runner");
  const paths = {
    owner: () => tool(cluster.a, session.id, "read_file", { path: "bench.txt" }),
    other: () => tool(cluster.b, session.id, "read_file", { path: "bench.txt" }),
    proxy: () => ok(apiCall<{ ok: boolean; error?: unknown }>(proxy.url, "POST", `/api/sessions/${session.id}/tools/read_file`, { args: { path: "bench.txt" } }, adminToken), "read_file through the bare proxy"),
  };
  // BENCH_TOOL_PATHS=other (say): only those paths, for a CPU profile of one (BERTH_CHILD_CPU_PROF_DIR).
  const wanted = (process.env.BENCH_TOOL_PATHS ?? "").split(",").filter(Boolean);
  const kinds = (["owner", "other", "proxy"] as const).filter((kind) => wanted.length === 0 || wanted.includes(kind));
  const samples = { owner: [] as number[], other: [] as number[], proxy: [] as number[] };
  const cpu = { forwarding: 0, idle: 0, owner: 0, ownerForwarded: 0, proxy: 0 };
  try {
    for (let round = 0; round < ROUNDS; round++) {
      // Each kind goes first, second and third in turn.
      const order = kinds.map((_, i) => kinds[(i + round) % kinds.length]!);
      for (const which of order) {
        const before = { a: cpuMs(cluster.a), b: cpuMs(cluster.b), proxy: cpuMs(proxy) };
        for (let i = 0; i < CALLS; i++) {
          const started = performance.now();
          const reply = await paths[which]();
          samples[which].push(performance.now() - started);
          if (!reply.ok) throw new Error(`read_file through ${which}: ${JSON.stringify(reply.error)}`);
        }
        const [spentA, spentB] = [cpuMs(cluster.a) - before.a, cpuMs(cluster.b) - before.b];
        if (which === "other") [cpu.forwarding, cpu.ownerForwarded] = [cpu.forwarding + spentB, cpu.ownerForwarded + spentA];
        else if (which === "owner") [cpu.idle, cpu.owner] = [cpu.idle + spentB, cpu.owner + spentA];
        else cpu.proxy += cpuMs(proxy) - before.proxy;
      }
    }
  } finally {
    proxy.stop();
  }
  if (wanted.length > 0) {
    // A profiling run: no ratios without their baselines.
    for (const kind of kinds) console.log(`tool call read_file 1 KiB through ${kind}: p50 ${percentile(samples[kind], 50).toFixed(2)} ms (${ROUNDS} rounds of ${CALLS}); load ${loadavg()}`);
    return;
  }
  const [owner, other, floor] = [percentile(samples.owner, 50), percentile(samples.other, 50), percentile(samples.proxy, 50)];
  console.log(
    `tool call read_file 1 KiB: through the other runner p50 ${other.toFixed(2)} ms, through the owner ${owner.toFixed(2)} ms (${(other / owner).toFixed(2)}x), ` +
      `through a bare node:http proxy in front of the owner ${floor.toFixed(2)} ms (${(floor / owner).toFixed(2)}x: the floor of one hop); p50s of ${ROUNDS} alternated rounds of ${CALLS} each; load ${loadavg()}`,
  );
  figure({ figure: "tool call p50 through the non-owner runner", value: other, unit: "ms", baseline: "through the owner", baselineValue: owner, target: "≤ 1.3x", ok: other / owner <= 1.3 });
  figure({ figure: "tool call p50 through a bare node:http proxy", value: floor, unit: "ms", baseline: "through the owner", baselineValue: owner });
  const calls = ROUNDS * CALLS;
  const [hop, own] = [(cpu.forwarding - cpu.idle) / calls, cpu.owner / calls];
  console.log(
    `forwarding runner's CPU per forwarded call ${hop.toFixed(3)} ms (${(cpu.forwarding / calls).toFixed(3)} less ${(cpu.idle / calls).toFixed(3)} while idle); ` +
      `the owner's per direct call ${own.toFixed(3)} ms, per forwarded call ${(cpu.ownerForwarded / calls).toFixed(3)} ms; ` +
      `the bare proxy's per call ${(cpu.proxy / calls).toFixed(3)} ms`,
  );
  figure({ figure: "forwarding runner's CPU per forwarded call", value: hop, unit: "ms", baseline: "the owner's CPU per direct call", baselineValue: own });
}

/** One session's container memory on its engine, as `docker stats` shows it (MiB). */
function idleMemoryMiB(cli: string[], sessionId: string): number {
  const docker = (args: string[]) => execFileSync("docker", [...cli, ...args], { encoding: "utf8", timeout: 60_000 }).trim();
  const id = docker(["ps", "-q", "--filter", `label=berth.session=${sessionId}`]);
  if (!id) throw new Error(`no container of session ${sessionId} on ${cli.length ? "the remote engine" : "the local engine"}`);
  const usage = docker(["stats", "--no-stream", "--format", "{{.MemUsage}}", id]).split("/")[0]!.trim();
  const match = /^([\d.]+)\s*([KMG]i?B|B)$/.exec(usage);
  if (!match) throw new Error(`docker stats said ${JSON.stringify(usage)} for session ${sessionId}`);
  const scale: Record<string, number> = { B: 1 / MB, KiB: 1 / 1024, MiB: 1, GiB: 1024, kB: 1 / 1024, MB: 1, GB: 1024 };
  return Number(match[1]) * (scale[match[2]!] ?? 1);
}

/** A session on each engine (placement: the host with the most free slots, the first listed on a tie), left idle. */
async function sessionsPerHostFigure(cluster: ChildCluster): Promise<void> {
  const onHost = new Map<"local" | "remote", string>();
  for (let i = 0; i < 2; i++) {
    const session = await ok(cluster.a.api<{ id: string }>("POST", "/api/sessions", { name: `bench-idle-${i}` }), "create session");
    // A first call starts its container.
    await tool(cluster.a, session.id, "write_file", { path: "idle.txt", content: "idle\n" });
    for (const name of ["local", "remote"] as const) {
      const found = execFileSync("docker", [...cluster.dockerCli[name], "ps", "-q", "--filter", `label=berth.session=${session.id}`], { encoding: "utf8" }).trim();
      if (found) onHost.set(name, session.id);
    }
  }
  if (onHost.size !== 2) throw new Error(`two sessions were not placed one per engine: ${JSON.stringify([...onHost])}`);
  // Settled: the agent's start-up allocations are gone from the figure.
  await new Promise((r) => setTimeout(r, 3_000));
  const totalMiB = os.totalmem() / MB;
  const busy = Math.floor(totalMiB / 1024);
  const local = idleMemoryMiB(cluster.dockerCli.local, onHost.get("local")!);
  for (const name of ["local", "remote"] as const) {
    const mib = name === "local" ? local : idleMemoryMiB(cluster.dockerCli.remote, onHost.get("remote")!);
    const idle = Math.floor(totalMiB / mib);
    console.log(`sessions per host (${name}): idle sandbox ${mib.toFixed(1)} MiB → ${idle} idle sessions in this machine's ${(totalMiB / 1024).toFixed(0)} GiB; ${busy} at the 1 GiB a working session may use`);
    figure({ figure: `idle sessions per host by memory (${name})`, value: idle, unit: "sessions", baseline: "working sessions at their 1 GiB limit", baselineValue: busy });
    if (name === "remote") figure({ figure: "idle sandbox memory (remote)", value: mib, unit: "MiB", baseline: "the local engine", baselineValue: local });
  }
}

type ClientResult = { digest: string; firstByteAt?: number; resumedAt: number };
const FANOUT_LIMIT_MS = 180_000;

/**
 * `clients` socket.io clients of the stream bench (stream-bench-clients.mjs) in one worker, on `base`; without this
 * process's node options, as the stream bench starts them (tsx's loader in a client thread makes its GC dearer).
 */
function clientThread(base: string, runId: string, clients: number): { results: Promise<ClientResult[]>; stop(): void } {
  const worker = new Worker(new URL("./stream-bench-clients.mjs", import.meta.url), { workerData: { base, token: adminToken, runId, bytes: BYTES, clients, dropAt: 0 }, execArgv: [] });
  const results = new Promise<ClientResult[]>((resolve, reject) => {
    worker.once("message", (message: { type: "done"; clients: ClientResult[] } | { type: "error"; message: string }) =>
      message.type === "done" ? resolve(message.clients) : reject(new Error(message.message)),
    );
    worker.once("error", reject);
  });
  return { results, stop: () => void worker.terminate() };
}

/** A run printing 100 MB on runner a's session, watched by 50 clients: all on a, or split between a and b. */
async function fanOutRound(cluster: ChildCluster, sessionId: string, split: boolean): Promise<{ seconds: number; exact: boolean }> {
  const started = performance.now();
  const { runId } = await tool(cluster.a, sessionId, "bash", {
    action: "start",
    command: `sleep 3; yes 0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTU | head -c ${BYTES}`,
  });
  if (!runId) throw new Error("bash start answered no runId");
  const half = CLIENTS / 2;
  const threads = [clientThread(cluster.a.url, runId, half), clientThread((split ? cluster.b : cluster.a).url, runId, CLIENTS - half)];
  let timer: NodeJS.Timeout | undefined;
  // Bounded: a run that ends short (interrupted) would leave the clients waiting for bytes that never come.
  const limit = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      void cluster.a
        .api<{ run: { status: string; cause: string | null; stdoutBytes: number } }>("GET", `/api/runs/${runId}`)
        .then(({ body }) => reject(new Error(`fan-out round not done within ${FANOUT_LIMIT_MS / 1000} s: run ${runId} is ${body.run.status} at ${body.run.stdoutBytes} bytes (cause: ${body.run.cause})`)), reject);
    }, FANOUT_LIMIT_MS);
  });
  try {
    const results = (await Promise.race([Promise.all(threads.map((t) => t.results)), limit])).flat();
    const seconds = (performance.now() - started - 3000) / 1000;
    const stored = crypto.createHash("sha256").update(fs.readFileSync(path.join(cluster.a.dataDir, "runs", runId, "stdout.log"))).digest("hex");
    return { seconds, exact: results.length === CLIENTS && results.every((r) => r.digest === stored) };
  } finally {
    clearTimeout(timer);
    for (const t of threads) t.stop();
  }
}

async function fanOutFigure(cluster: ChildCluster): Promise<void> {
  const session = await ok(cluster.a.api<{ id: string }>("POST", "/api/sessions", { name: "bench-fanout", autonomy: "yolo" }), "create session");
  const rounds = { one: [] as number[], split: [] as number[] };
  let exact = true;
  for (let round = 0; round < FANOUT_ROUNDS; round++) {
    for (const split of round % 2 ? [true, false] : [false, true]) {
      const result = await fanOutRound(cluster, session.id, split);
      exact &&= result.exact;
      rounds[split ? "split" : "one"].push((BYTES / MB / result.seconds) * CLIENTS);
      console.log(`• fan-out round ${round + 1}, ${split ? "split across a and b" : "all on a"}: ${((BYTES / MB / result.seconds) * CLIENTS).toFixed(0)} MB/s in all, every byte: ${result.exact ? "yes" : "NO"}; load ${loadavg()}`);
    }
  }
  const [one, split] = [median(rounds.one), median(rounds.split)];
  console.log(`fan-out of 100 MB to ${CLIENTS} clients: split across two runners ${split.toFixed(0)} MB/s in all, all on the owner ${one.toFixed(0)} MB/s (${(split / one).toFixed(2)}x; every client every byte: ${exact ? "yes" : "NO"})`);
  figure({ figure: `live output in all, ${CLIENTS} clients split across two runners`, value: split, unit: "MB/s", baseline: `all ${CLIENTS} on the owner`, baselineValue: one, target: "every byte to every client", ok: exact });
}

/** Runner a SIGKILLed under its sessions; the time until each answers a tool call through b. */
async function failoverFigure(cluster: ChildCluster): Promise<void> {
  const sessions: string[] = [];
  for (let i = 0; i < FAILOVER_SESSIONS; i++) {
    const session = await ok(cluster.a.api<{ id: string }>("POST", "/api/sessions", { name: `bench-failover-${i}`, autonomy: "trusted" }), "create session");
    await tool(cluster.a, session.id, "write_file", { path: "before.txt", content: `session ${i}\n` });
    sessions.push(session.id);
  }
  await cluster.a.kill();
  const killedAt = performance.now();
  const usableAfter: number[] = [];
  await Promise.all(
    sessions.map(async (id, i) => {
      for (;;) {
        const reply = await cluster.b
          .api<{ ok: boolean; details?: { content?: string } }>("POST", `/api/sessions/${id}/tools/read_file`, { args: { path: "before.txt" } })
          .catch(() => null);
        if (reply?.status === 200 && reply.body.ok && reply.body.details?.content === `session ${i}\n`) return void usableAfter.push(performance.now() - killedAt);
        if (performance.now() - killedAt > FAILOVER_LIMIT_MS) return void usableAfter.push(Number.POSITIVE_INFINITY);
        await new Promise((r) => setTimeout(r, 100));
      }
    }),
  );
  const seconds = Math.max(...usableAfter) / 1000;
  const all = Number.isFinite(seconds);
  console.log(`failover: runner a SIGKILLed; its ${FAILOVER_SESSIONS} sessions usable through b after ${all ? `${seconds.toFixed(2)} s` : `more than ${FAILOVER_LIMIT_MS / 1000} s (not all adopted)`} (lease ${LEASE_MS / 1000} s; load ${loadavg()})`);
  figure({ figure: "failover, kill to sessions usable again", value: all ? seconds : FAILOVER_LIMIT_MS / 1000, unit: "s", baseline: "the lease", baselineValue: LEASE_MS / 1000, target: "≤ 10 s", ok: all && seconds <= 10 });
}

/**
 * The PostgreSQL and Redis test servers' URLs: from the environment (npm test's stage sets them), else from the
 * servers setup started (scripts/lib/test-postgres.mjs, test-redis.mjs answer at once when they run).
 */
async function ensureServers(): Promise<void> {
  const root = path.resolve(import.meta.dirname, "../../../..");
  const noInstall = () => Promise.reject(new Error("the PostgreSQL and Redis test servers are not installed: run npm test's setup (node scripts/setup.mjs) first"));
  const servers = { isRoot: process.getuid?.() === 0, isDebian: true, aptInstall: noInstall };
  if (!process.env["BERTH_TEST_POSTGRES_URL"]) {
    const { ensureTestPostgres } = (await import(path.join(root, "scripts/lib/test-postgres.mjs"))) as { ensureTestPostgres(o: typeof servers): Promise<string> };
    process.env["BERTH_TEST_POSTGRES_URL"] = await ensureTestPostgres(servers);
  }
  if (!process.env["BERTH_TEST_REDIS_URL"]) {
    const { ensureTestRedis } = (await import(path.join(root, "scripts/lib/test-redis.mjs"))) as { ensureTestRedis(o: typeof servers): Promise<string> };
    process.env["BERTH_TEST_REDIS_URL"] = await ensureTestRedis(servers);
  }
}

/** The keystroke-echo bench (its own runners, so after this bench's are closed); its figures print in the table. */
async function terminalFigure(): Promise<void> {
  const bench = path.join(import.meta.dirname, "terminal-forward-bench.ts");
  const child = spawn(process.execPath, ["--import", "tsx", bench], { stdio: "inherit" });
  const code = await new Promise<number | null>((resolve, reject) => child.once("exit", resolve).once("error", reject));
  if (code !== 0) throw new Error(`terminal-forward-bench.ts exited with ${code}`);
}

const only = (process.env.BENCH_ONLY ?? "").split(",").filter(Boolean);
const chosen = (name: string) => !only.length || only.some((o) => name.startsWith(o));
let cluster: ChildCluster | undefined;
try {
  await ensureServers();
  console.log(`Berth cluster bench: two runners, one PostgreSQL, one Redis, two Docker engines; load ${loadavg()} (${os.cpus().length} CPUs)`);
  // Imported once the servers' URLs are in the environment: the test database module reads them as it loads.
  const { startChildCluster } = await import("../testing/child-cluster");
  ({ TEST_ADMIN_TOKEN: adminToken } = await import("../testing/runner-test-kit"));
  cluster = await startChildCluster({ name: "cb", env: { BERTH_SESSION_LEASE_MS: String(LEASE_MS), BERTH_WARM_POOL: "0" }, engine: { netns: "berth-dhcb", subnet: 94 } });
  const steps: [string, (c: ChildCluster) => Promise<void>][] = [
    ["tool calls", toolCallFigure],
    ["sessions per host", sessionsPerHostFigure],
    ["fan-out", fanOutFigure],
    ["failover", failoverFigure],
  ];
  for (const [name, step] of steps) {
    if (!chosen(name)) continue;
    try {
      await step(cluster);
    } catch (error) {
      // One figure's failure (a piece not built yet) leaves the others standing; the bench still exits non-zero.
      console.error(`cluster bench, ${name}: ${(error as Error).stack ?? String(error)}`);
      process.exitCode = 1;
    }
  }
  console.log(`load average after: ${loadavg()}`);
} catch (error) {
  console.error("cluster bench failed:", error);
  process.exitCode = 1;
} finally {
  await cluster?.close();
}
if (chosen("terminal")) {
  try {
    await terminalFigure();
  } catch (error) {
    console.error(`cluster bench, terminal: ${(error as Error).message}`);
    process.exitCode = 1;
  }
}
