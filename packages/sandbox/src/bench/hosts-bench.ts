// `npx tsx packages/sandbox/src/bench/hosts-bench.ts` (root: `npm run bench:hosts`): one runner, two Docker engines
// behind MultiHostSandboxDriver — the local socket and a second dockerd in a network namespace reached over TCP with
// mutual TLS (scripts/lib/netns-dockerd.mjs). Measures, alternated rounds, the agent RPC round trip (`read_file`
// 4 KiB) and a cold start on the remote host against the same on the local one, and the memory of an idle sandbox
// on each. Everything it creates is removed at the end (the second engine too).
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type Docker from "dockerode";
import { removeNetns, startNetnsDockerd, stopNetnsDockerd } from "../../../../scripts/lib/netns-dockerd.mjs";
import { SandboxLabel } from "../docker/sandbox-labels";
import { cleanupRunner, docker as localDocker, testRunnerId } from "../testing/docker-test-kit";
import { createMultiHostDriver, ensureImageOnHosts } from "../hosts/create-multi-host-driver";
import { parseDockerHosts } from "../hosts/docker-hosts";

const IMAGE = "berth-sandbox:latest";
const ROUNDS = 7;
const CALLS_PER_ROUND = 150;
const engine = { netns: "berth-dhb", hostAddress: "10.213.92.1", address: "10.213.92.2", dir: fs.mkdtempSync(path.join(os.tmpdir(), "berth-dhb-")) };

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? Number.NaN;

async function idleMemoryMiB(docker: Docker, runnerId: string, sessionId: string): Promise<number> {
  const [info] = await docker.listContainers({ filters: { label: [`${SandboxLabel.Runner}=${runnerId}`, `${SandboxLabel.Session}=${sessionId}`] } });
  const stats = (await docker.getContainer(info!.Id).stats({ stream: false })) as { memory_stats: { usage: number; stats?: { cache?: number } } };
  return (stats.memory_stats.usage - (stats.memory_stats.stats?.cache ?? 0)) / 1024 ** 2;
}

async function main(): Promise<void> {
  const loadBefore = os.loadavg()[0] ?? 0;
  const runnerId = testRunnerId("hosts-bench");
  const second = await startNetnsDockerd(engine);
  const hosts = parseDockerHosts(`local=unix:///var/run/docker.sock?max=100,dh=${second.url}?tls=${second.certDir}&max=100`);
  const { driver, clients } = createMultiHostDriver(hosts, { runnerId, image: IMAGE, poolSize: 0, heartbeatIntervalMs: 0 });
  try {
    await ensureImageOnHosts(localDocker, clients, IMAGE);
    await driver.start();
    // Cold starts, alternated: a local one, then a remote one (the host with more free slots gets each new session,
    // so two at a time land one on each host).
    const cold = { local: [] as number[], dh: [] as number[] };
    for (let round = 0; round < 4; round++) {
      for (const name of ["a", "b"]) {
        const sessionId = `cold-${round}-${name}`;
        const started = performance.now();
        await driver.acquire(sessionId);
        cold[driver.hostName(sessionId) as "local" | "dh"].push(performance.now() - started);
      }
      await Promise.all([`cold-${round}-a`, `cold-${round}-b`].map((id) => driver.destroy(id)));
    }

    await driver.acquire("rpc-a");
    await driver.acquire("rpc-b");
    const onHost = { [driver.hostName("rpc-a")!]: "rpc-a", [driver.hostName("rpc-b")!]: "rpc-b" } as Record<"local" | "dh", string>;
    const content = "x".repeat(4096);
    for (const id of ["rpc-a", "rpc-b"]) await driver.call(id, { tool: "write_file", args: { path: "f.txt", content }, callId: `${id}-w` });
    const rpc = { local: [] as number[], dh: [] as number[] };
    let seq = 0;
    for (let round = 0; round < ROUNDS; round++) {
      for (const host of round % 2 ? (["dh", "local"] as const) : (["local", "dh"] as const)) {
        const samples: number[] = [];
        for (let i = 0; i < CALLS_PER_ROUND; i++) {
          const started = performance.now();
          const result = await driver.call(onHost[host], { tool: "read_file", args: { path: "f.txt" }, callId: `r-${++seq}` });
          samples.push(performance.now() - started);
          if (!result.ok) throw new Error(`read_file failed on ${host}: ${result.output}`);
        }
        rpc[host].push(median(samples));
      }
    }
    const memory = {
      local: await idleMemoryMiB(clients.get("local")!, runnerId, onHost.local),
      dh: await idleMemoryMiB(clients.get("dh")!, runnerId, onHost.dh),
    };

    const figures = [
      { figure: "RPC read_file 4 KiB, remote host (TCP + mutual TLS) p50", value: median(rpc.dh), unit: "ms", baseline: "the same on the local socket", baselineValue: median(rpc.local) },
      { figure: "cold start → agent ready, remote host p50", value: median(cold.dh), unit: "ms", baseline: "cold start on the local engine", baselineValue: median(cold.local) },
      { figure: "idle sandbox memory, remote host", value: memory.dh, unit: "MiB", baseline: "the same on the local engine", baselineValue: memory.local },
    ];
    for (const f of figures) console.log(`${f.figure.padEnd(58)} ${f.value.toFixed(3).padStart(9)} ${f.unit}   (${f.baseline}: ${f.baselineValue.toFixed(3)} ${f.unit}, ratio ${(f.value / f.baselineValue).toFixed(2)}x)`);
    console.log(`${ROUNDS} alternated rounds of ${CALLS_PER_ROUND} calls (median of round medians); cold starts: 4 per host; load average ${loadBefore.toFixed(1)} → ${(os.loadavg()[0] ?? 0).toFixed(1)} on ${os.cpus().length} CPUs`);
    for (const f of figures) console.log(`bench-figure ${JSON.stringify(f)}`);
  } finally {
    await driver.close({ stopSessions: true });
    await cleanupRunner(runnerId);
    const remote = clients.get("dh");
    if (remote) {
      const left = await remote.listContainers({ all: true, filters: { label: [`${SandboxLabel.Runner}=${runnerId}`] } });
      await Promise.allSettled(left.map((c) => remote.getContainer(c.Id).remove({ force: true })));
      const { Volumes } = await remote.listVolumes({ filters: { label: [`${SandboxLabel.Runner}=${runnerId}`] } });
      await Promise.allSettled((Volumes ?? []).map((v) => remote.getVolume(v.Name).remove()));
    }
    await stopNetnsDockerd(engine);
    removeNetns(engine);
    fs.rmSync(engine.dir, { recursive: true, force: true });
  }
}

await main();
