// `npm run cluster`: a local Berth cluster for trying scale-out on one machine (docs/scale-out.md). Setup as
// `npm start` does, plus PostgreSQL, Redis and nginx from Debian (private servers on 127.0.0.1), the second Docker
// engine (dockerd in the network namespace berth-dh2, over TCP with mutual TLS on a veth address); then two runners
// (a and b, each driving both engines, on one database and one Redis), the web app, and nginx in front on ONE port:
// http://127.0.0.1:8080 (BERTH_CLUSTER_PORT). Ctrl-C stops everything it started. Needs root (the namespace, the
// PostgreSQL cluster). Nothing listens beyond 127.0.0.1, but the second engine on its private veth address.
import net from "node:net";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { setup, SetupError } from "./lib/setup.mjs";
import { loadImageInto, startNetnsDockerd } from "./lib/netns-dockerd.mjs";
import { clusterPorts, ensureClusterDatabase, ensureClusterSecrets, startCluster } from "./lib/cluster/start-cluster.mjs";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const dataDir = path.resolve(root, process.env.BERTH_CLUSTER_DATA_DIR || ".berth/cluster");
const started = Date.now();

function ensurePortFree(port) {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.once("error", (error) =>
      reject(new SetupError(error.code === "EADDRINUSE" ? `port ${port} on 127.0.0.1 is in use: stop what holds it or set the BERTH_CLUSTER_*PORT variable for it` : `cannot listen on 127.0.0.1:${port}: ${error.message}`)),
    );
    probe.listen(port, "127.0.0.1", () => probe.close(resolve));
  });
}

let cluster;
try {
  if (process.getuid?.() !== 0) throw new SetupError("run as root: it creates a network namespace for the second Docker engine and starts PostgreSQL as the postgres user");
  const ports = clusterPorts(process.env);
  for (const port of [ports.proxy, ports.web, ...ports.runners]) await ensurePortFree(port);
  const { testPostgresUrl, testRedisUrl } = await setup(root, { dataDir, forCluster: true });
  const engine = await startNetnsDockerd();
  if (loadImageInto({}, "berth-sandbox:latest")) process.stdout.write("• loaded berth-sandbox:latest into the second Docker engine\n");
  const databaseUrl = await ensureClusterDatabase(root, testPostgresUrl);
  const { tokenFile, token, clusterSecret } = ensureClusterSecrets(dataDir);
  const socket = process.env.DOCKER_HOST?.startsWith("unix://") ? process.env.DOCKER_HOST : "unix:///var/run/docker.sock";
  cluster = await startCluster(root, {
    dataDir,
    env: process.env,
    ports,
    databaseUrl,
    redisUrl: testRedisUrl,
    dockerHosts: `local=${socket},dh2=${engine.url}?tls=${engine.certDir}`,
    token,
    clusterSecret,
    out: process.stdout,
    err: process.stderr,
  });
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  process.stdout.write(
    [
      "",
      `Berth cluster is ready in ${seconds} s`,
      `  Open:        ${cluster.url}  (nginx: ${cluster.nginxConf})`,
      `  Admin token: ${tokenFile}`,
      `  Runners:     a ${cluster.runners[0]}, b ${cluster.runners[1]} (one PostgreSQL database, one Redis)`,
      `  Docker:      local (${socket}) and dh2 (${engine.url}, mutual TLS)`,
      `  Web app:     ${cluster.web}`,
      "Ctrl-C stops it all (the second Docker engine keeps running: npm run docker-host stop).",
      "",
    ].join("\n") + "\n",
  );
} catch (error) {
  cluster?.stop();
  process.stderr.write(`npm run cluster: ${error instanceof SetupError ? error.message : (error.stack ?? error)}\n`);
  process.exit(1);
}

let stopping = false;
const shutdown = () => {
  if (stopping) return;
  stopping = true;
  process.stdout.write("\nstopping the runners, the web app and nginx …\n");
  cluster.stop();
  const gone = Promise.all(cluster.children.map((c) => (c.exitCode === null && c.signalCode === null ? new Promise((r) => c.once("exit", r)) : null)));
  // A runner that does not stop within 15 s is killed: nothing of the cluster outlives the command.
  const force = setTimeout(() => {
    for (const c of cluster.children) if (c.exitCode === null && c.signalCode === null) c.kill("SIGKILL");
  }, 15_000);
  force.unref();
  void gone.then(() => process.exit(process.exitCode ?? 0));
};
process.on("SIGINT", shutdown);
process.on("SIGTERM", shutdown);
for (const child of cluster.children) {
  child.on("exit", (code, signal) => {
    if (stopping) return;
    process.stderr.write(`${child.name} exited (${code ?? signal}); stopping the cluster\n`);
    process.exitCode = 1;
    shutdown();
  });
}
