import crypto from "node:crypto";
import Fastify from "fastify";
import type { TestRunner } from "../testing/runner-test-kit";
import { TEST_ADMIN_TOKEN } from "../testing/runner-test-kit";
import { percentile } from "./bench-stats";
import { runCallersInChild } from "./http-callers";
import { KeepAliveClient } from "./keep-alive-client";

/** One `bench-figure` line's JSON (scripts/bench.mjs). */
export interface BenchFigure {
  figure: string;
  value: number;
  unit: string;
  baseline?: string;
  baselineValue?: number;
  target?: string;
  ok?: boolean;
}

const ROUNDS = 12;
const PER_ROUND = 25;
const CONCURRENCY = 16;
const CONCURRENT_CALLS = 1_600;

const median = (samples: number[]) => percentile(samples, 50);

/**
 * A tool call over HTTP against the agent RPC alone through the runner's own connection to the same container
 * (what is left is the runner: auth, session, admission, rows, receipts), with a bare Fastify round trip on this
 * machine beside it as the floor. Rounds alternate which side goes first; each figure is the median of all samples.
 */
export async function measureHotPath(kit: TestRunner, sessionId: string): Promise<BenchFigure[]> {
  const { driver } = kit.runner;
  const url = `${kit.url}/api/sessions/${sessionId}/tools`;
  const headers = { authorization: `Bearer ${TEST_ADMIN_TOKEN}` };
  // Every HTTP side (the floor too) uses the same client: one kept-alive socket per caller.
  const client = new KeepAliveClient({ sockets: CONCURRENCY });
  const overHttp = async (tool: string, args: unknown) => {
    const { status, body } = await client.postJson(`${url}/${tool}`, headers, { args });
    if (status !== 200 || !(body as { ok?: boolean }).ok)
      throw new Error(`${tool} over HTTP: ${status} ${JSON.stringify(body).slice(0, 300)}`);
  };
  const rpc = async (tool: string, args: unknown) => {
    const result = await driver.call(sessionId, {
      tool,
      args,
      callId: `bench_${crypto.randomBytes(6).toString("hex")}`,
      env: {},
    });
    if (!result.ok) throw new Error(`${tool} RPC: ${result.output}`);
  };

  // The floor: the same client, headers and JSON body against a route that does nothing, in this process.
  const bare = Fastify({ logger: false });
  bare.post("/echo", async () => ({ ok: true, output: "x" }));
  const bareUrl = await bare.listen({ host: "127.0.0.1", port: 0 });
  const fastifyRoundTrip = async () => {
    await client.postJson(`${bareUrl}/echo`, headers, { args: { path: "one.txt" } });
  };

  try {
    await overHttp("write_file", { path: "one.txt", content: "x" });
    await overHttp("write_file", { path: "four-k.txt", content: "x".repeat(4096) });
    const read1 = await alternate({
      http: () => overHttp("read_file", { path: "one.txt" }),
      rpc: () => rpc("read_file", { path: "one.txt" }),
      fastify: fastifyRoundTrip,
    });
    const bashTrue = await alternate({
      http: () => overHttp("bash", { command: "true" }),
      rpc: () => rpc("bash", { command: "true" }),
    });
    const concurrentHttp = await concurrentlyOverHttp(`${url}/read_file`, headers, { args: { path: "four-k.txt" } });
    const concurrentRpc = await concurrently(() => rpc("read_file", { path: "four-k.txt" }));

    const ratio = (a: number[], b: number[]) => median(a) / median(b);
    console.log("\nHot path (HTTP tool call against the agent RPC alone, alternated rounds, medians)\n");
    console.log(
      `  read_file 1 B   HTTP ${median(read1.http!).toFixed(2)} ms   RPC ${median(read1.rpc!).toFixed(2)} ms   bare Fastify ${median(read1.fastify!).toFixed(2)} ms   HTTP/RPC ${ratio(read1.http!, read1.rpc!).toFixed(2)}x`,
    );
    console.log(
      `  bash true       HTTP ${median(bashTrue.http!).toFixed(2)} ms   RPC ${median(bashTrue.rpc!).toFixed(2)} ms   HTTP/RPC ${ratio(bashTrue.http!, bashTrue.rpc!).toFixed(2)}x`,
    );
    console.log(
      `  ${CONCURRENCY} callers, read_file 4 KiB   HTTP ${concurrentHttp.perSecond.toFixed(0)} calls/s p50 ${concurrentHttp.p50.toFixed(2)} ms (CPU a call: runner ${concurrentHttp.cpuMs.toFixed(3)} ms, client ${concurrentHttp.clientCpuMs.toFixed(3)} ms)   RPC ${concurrentRpc.perSecond.toFixed(0)} calls/s p50 ${concurrentRpc.p50.toFixed(2)} ms (CPU ${concurrentRpc.cpuMs.toFixed(3)} ms a call)`,
    );
    const rpcAlone = "the agent RPC alone";
    const together = `the agent RPC alone, ${CONCURRENCY} callers`;
    return [
      figure(
        "read_file 1 B over HTTP p50",
        median(read1.http!),
        "ms",
        [rpcAlone, median(read1.rpc!)],
        ["≤ 2x the RPC", (v, b) => v <= 2 * b],
      ),
      figure("bare Fastify round trip p50 (the floor)", median(read1.fastify!), "ms", [rpcAlone, median(read1.rpc!)]),
      figure(
        "bash `true` over HTTP p50",
        median(bashTrue.http!),
        "ms",
        [rpcAlone, median(bashTrue.rpc!)],
        ["≤ 1.5x the RPC", (v, b) => v <= 1.5 * b],
      ),
      figure(
        `${CONCURRENCY} callers, read_file 4 KiB over HTTP`,
        concurrentHttp.perSecond,
        "calls/s",
        [together, concurrentRpc.perSecond],
        ["≥ 1,500 calls/s", (v) => v >= 1500],
      ),
      figure(
        `${CONCURRENCY} callers, read_file 4 KiB over HTTP p50`,
        concurrentHttp.p50,
        "ms",
        [together, concurrentRpc.p50],
        ["p50 ≤ 10 ms", (v) => v <= 10],
      ),
    ];
  } finally {
    client.close();
    await bare.close();
  }
}

/** A figure with its in-run baseline and, when it has one, its target met or not. */
function figure(
  name: string,
  value: number,
  unit: string,
  [baseline, baselineValue]: [string, number],
  target?: [string, (value: number, baseline: number) => boolean],
): BenchFigure {
  return {
    figure: name,
    value,
    unit,
    baseline,
    baselineValue,
    ...(target ? { target: target[0], ok: target[1](value, baselineValue) } : {}),
  };
}

/** Rounds of each side in turn, the first side rotating each round; one warm-up round is not kept. */
async function alternate<K extends string>(
  sides: Record<K, () => Promise<void>>,
): Promise<Partial<Record<K, number[]>>> {
  const names = Object.keys(sides) as K[];
  const samples: Partial<Record<K, number[]>> = {};
  for (let round = -1; round < ROUNDS; round++) {
    const order = names.map((_, i) => names[(i + Math.max(0, round)) % names.length]!);
    for (const name of order) {
      for (let i = 0; i < PER_ROUND; i++) {
        const started = performance.now();
        await sides[name]();
        if (round >= 0) (samples[name] ??= []).push(performance.now() - started);
      }
    }
  }
  return samples;
}

/**
 * CONCURRENT_CALLS calls from CONCURRENCY callers at once (after a tenth as many to warm up): calls per second of
 * wall time, each call's p50, and this process's CPU per call (the agent's is the container's).
 */
async function concurrently(fn: () => Promise<void>): Promise<{ perSecond: number; p50: number; cpuMs: number }> {
  const run = async (count: number) => {
    const latencies: number[] = [];
    let issued = 0;
    const caller = async () => {
      while (issued++ < count) {
        const started = performance.now();
        await fn();
        latencies.push(performance.now() - started);
      }
    };
    const cpu = process.cpuUsage();
    const started = performance.now();
    await Promise.all(Array.from({ length: CONCURRENCY }, caller));
    const wall = performance.now() - started;
    const { user, system } = process.cpuUsage(cpu);
    return { perSecond: count / (wall / 1000), p50: median(latencies), cpuMs: (user + system) / 1000 / count };
  };
  await run(CONCURRENT_CALLS / 10);
  return run(CONCURRENT_CALLS);
}

/**
 * The same over HTTP, the callers in a client process of their own (as real callers are), so the runner's one
 * thread serves calls only; the runner's CPU per call (this process) and the client's are counted apart.
 */
async function concurrentlyOverHttp(
  url: string,
  headers: Record<string, string>,
  body: unknown,
): Promise<{ perSecond: number; p50: number; cpuMs: number; clientCpuMs: number }> {
  const job = { url, headers, body, callers: CONCURRENCY };
  await runCallersInChild({ ...job, count: CONCURRENT_CALLS / 10 });
  const cpu = process.cpuUsage();
  const report = await runCallersInChild({ ...job, count: CONCURRENT_CALLS });
  const { user, system } = process.cpuUsage(cpu);
  return {
    perSecond: CONCURRENT_CALLS / (report.wallMs / 1000),
    p50: median(report.latencies),
    cpuMs: (user + system) / 1000 / CONCURRENT_CALLS,
    clientCpuMs: report.clientCpuMs / CONCURRENT_CALLS,
  };
}
