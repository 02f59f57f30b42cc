import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { nginxCommand, writeNginxConf } from "../../../../scripts/lib/nginx-conf.mjs";
import { dockerCliArgs, loadImageInto, removeNetns, startNetnsDockerd, stopNetnsDockerd } from "../../../../scripts/lib/netns-dockerd.mjs";
import { ChildRunner, freePort } from "./child-runner";
import { createTestDatabase, type TestDatabase } from "./test-database";

const IMAGE = "berth-sandbox:latest";

/** A deployment on one machine, as `npm run cluster` starts it, with runners a test can SIGKILL. */
export interface ChildCluster {
  a: ChildRunner;
  b: ChildRunner;
  /** nginx in front of both runners (scripts/lib/nginx-conf.mjs): http://127.0.0.1:<port>. */
  proxyUrl: string;
  database: TestDatabase;
  redisUrl: string;
  /** BERTH_DOCKER_HOSTS of both runners: `local` (the Docker tests' engine) and `remote` (over mutual TLS). */
  dockerHosts: string;
  /** The docker CLI's host flags for each engine ([] for the local one). */
  dockerCli: { local: string[]; remote: string[] };
  /** Runners closed (their sessions deleted), nginx stopped, the database dropped, the second engine removed. */
  close(): Promise<void>;
}

/**
 * Two runners as child processes (main.ts through tsx) on one PostgreSQL database and the Redis test server, each
 * driving two Docker engines — the local one and a dockerd of this kit's own in a network namespace, reached over
 * TCP with mutual TLS (its own namespace and addresses, so `npm run cluster`'s engine is untouched) — and nginx in
 * front. For `*.cluster.test.ts` and `npm run bench:cluster`; needs BERTH_TEST_POSTGRES_URL and BERTH_TEST_REDIS_URL.
 * `env`: settings for both runners (e.g. BERTH_SESSION_LEASE_MS).
 */
export async function startChildCluster(opts: {
  name: string;
  env?: Record<string, string>;
  /** The second engine's namespace and /30 (10.213.<subnet>.0): one of its own per user, so a test and a bench can run at once. */
  engine?: { netns: string; subnet: number };
}): Promise<ChildCluster> {
  const redisUrl = process.env["BERTH_TEST_REDIS_URL"] ?? "";
  if (!redisUrl || !process.env["BERTH_TEST_POSTGRES_URL"]) {
    throw new Error("a cluster needs BERTH_TEST_POSTGRES_URL and BERTH_TEST_REDIS_URL (npm test's setup starts both servers and passes them to the cluster stage)");
  }
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), `berth-${opts.name}-`));
  const { netns, subnet } = opts.engine ?? { netns: "berth-dhc", subnet: 93 };
  const engine = { netns, hostAddress: `10.213.${subnet}.1`, address: `10.213.${subnet}.2`, dir: path.join(scratch, "engine") };
  const cleanups: (() => Promise<void> | void)[] = [];
  const close = async () => {
    for (const cleanup of cleanups.reverse()) await (async () => cleanup())().catch((error: Error) => console.error(`cluster cleanup: ${error.message}`));
    // Best effort: what is still mounted there (a dockerd that did not stop) must not hide the error being reported.
    try {
      fs.rmSync(scratch, { recursive: true, force: true });
    } catch (error) {
      console.error(`cluster cleanup: ${scratch} left behind: ${(error as Error).message}`);
    }
  };
  try {
    cleanups.push(async () => {
      await stopNetnsDockerd(engine);
      removeNetns(engine);
    });
    const second = await startNetnsDockerd(engine);
    // Loaded once here, not by both runners at once as they start.
    loadImageInto(engine, IMAGE);
    const socket = process.env["DOCKER_HOST"]?.startsWith("unix://") ? process.env["DOCKER_HOST"] : "unix:///var/run/docker.sock";
    const dockerHosts = `local=${socket},remote=${second.url}?tls=${second.certDir}`;
    const remoteCli = dockerCliArgs({ ...engine, port: second.port });

    const database = createTestDatabase(scratch);
    cleanups.push(() => database.drop());
    const suffix = `${process.pid % 100_000}-${Math.floor(Math.random() * 1e6)}`;
    // The page's origin is the proxy's, as in `npm run cluster`: the runners answer its Host and allow its Origin.
    const proxyPort = await freePort();
    const env = {
      BERTH_REDIS_URL: redisUrl,
      BERTH_DOCKER_HOSTS: dockerHosts,
      BERTH_WEB_PORT: String(proxyPort),
      // Signs what one runner forwards to a session's owner (cluster/forward-marker.ts); forwarding is off without it.
      BERTH_CLUSTER_SECRET: crypto.randomBytes(32).toString("hex"),
      ...opts.env,
    };
    const runners: ChildRunner[] = [];
    cleanups.push(async () => {
      for (const runner of runners) await runner.close();
      // What a runner could not delete (a session another runner held, one a killed runner left) goes by label.
      for (const cli of [[], remoteCli]) removeByRunner(cli, runners.map((r) => r.runnerId));
    });
    // One after the other: the second starts against the rows the first wrote (the admin token, its Runner row).
    for (const id of ["a", "b"]) runners.push(await ChildRunner.create({ runnerId: `${opts.name}-${id}-${suffix}`.slice(0, 32), env, database }));
    const [a, b] = runners as [ChildRunner, ChildRunner];

    const proxy = await startProxy(path.join(scratch, "nginx"), proxyPort, [a.port, b.port]);
    cleanups.push(() => proxy.stop());
    return { a, b, proxyUrl: proxy.url, database, redisUrl, dockerHosts, dockerCli: { local: [], remote: remoteCli }, close };
  } catch (error) {
    await close();
    throw error;
  }
}

/** nginx in the foreground with the cluster's config; no web app behind it in tests (its upstream answers 502). */
async function startProxy(dir: string, port: number, runnerPorts: number[]): Promise<{ url: string; stop(): Promise<void> }> {
  const file = writeNginxConf({ port, runners: runnerPorts.map((p) => `127.0.0.1:${p}`), web: "127.0.0.1:9", dir });
  const [binary, args] = nginxCommand(dir, file);
  const child: ChildProcess = spawn(binary, args, { stdio: ["ignore", "ignore", "pipe"] });
  let stderr = "";
  child.stderr?.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const url = `http://127.0.0.1:${port}`;
  const until = Date.now() + 15_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`nginx exited (${child.exitCode}): ${stderr}`);
    const answered = await fetch(`${url}/healthz`, { signal: AbortSignal.timeout(2_000) }).then(
      (r) => r.status < 500,
      () => false,
    );
    if (answered) break;
    if (Date.now() > until) throw new Error(`nginx did not answer on ${url} within 15 s: ${stderr}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    url,
    stop: async () => {
      if (child.exitCode !== null) return;
      const gone = new Promise((r) => child.once("exit", r));
      child.kill("SIGTERM");
      await gone;
    },
  };
}

/** Containers and workspace volumes labelled with one of `runnerIds`, removed through the docker CLI (`cli`: its host flags). */
export function removeByRunner(cli: string[], runnerIds: string[]): void {
  const docker = (args: string[]) => execFileSync("docker", [...cli, ...args], { encoding: "utf8", timeout: 60_000 }).split("\n").filter(Boolean);
  for (const id of runnerIds) {
    const filter = ["--filter", `label=berth.runner=${id}`];
    const containers = docker(["ps", "-aq", ...filter]);
    if (containers.length) docker(["rm", "-f", ...containers]);
    const volumes = docker(["volume", "ls", "-q", ...filter]);
    if (volumes.length) docker(["volume", "rm", "-f", ...volumes]);
  }
}
