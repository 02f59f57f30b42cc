// The processes of a local cluster (`npm run cluster`, docs/scale-out.md): two runners on one PostgreSQL database
// and one Redis, each driving both Docker engines, the web app, and nginx on one port of 127.0.0.1 in front. Every
// process is a child in our process group, so Ctrl-C (a signal to the group) reaches them all and `stop` ends
// them together; nothing outlives the command.
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { spawn, spawnSync } from "node:child_process";
import { migratePostgres } from "../migrate-postgres.mjs";
import { nginxCommand, writeNginxConf } from "../nginx-conf.mjs";
import { prefixed, waitForHttp } from "../serve.mjs";

/** Ports on 127.0.0.1; each can be overridden (BERTH_CLUSTER_PORT is the one URL people open). */
export function clusterPorts(env) {
  const port = (name, fallback) => {
    const value = Number(env[name] || fallback);
    if (!Number.isInteger(value) || value < 1 || value > 65535) throw new Error(`${name}=${JSON.stringify(env[name])}: must be a TCP port (1-65535)`);
    return value;
  };
  return {
    proxy: port("BERTH_CLUSTER_PORT", 8080),
    runners: [port("BERTH_CLUSTER_RUNNER_A_PORT", 4101), port("BERTH_CLUSTER_RUNNER_B_PORT", 4102)],
    web: port("BERTH_CLUSTER_WEB_PORT", 3100),
  };
}

/** The cluster's database on the PostgreSQL server (kept between starts), created when missing, migrated. */
export async function ensureClusterDatabase(root, adminUrl, name = "berth_cluster") {
  const psql = (sql) => spawnSync("psql", [adminUrl, "-XAtqc", sql], { encoding: "utf8" });
  const exists = psql(`SELECT 1 FROM pg_database WHERE datname = '${name}'`);
  if (exists.status !== 0) throw new Error(`PostgreSQL at ${new URL(adminUrl).host} does not answer: ${exists.stderr.trim()}`);
  if (exists.stdout.trim() !== "1") {
    const created = psql(`CREATE DATABASE "${name}"`);
    if (created.status !== 0) throw new Error(`CREATE DATABASE "${name}" failed: ${created.stderr.trim()}`);
  }
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  await migratePostgres(root, url.href);
  return url.href;
}

/** A secret of the cluster's in `dataDir`, made once, kept 0600 (a file another user cannot read). */
function clusterSecret(dataDir, name) {
  const file = path.join(dataDir, name);
  if (!fs.existsSync(file)) fs.writeFileSync(file, `${crypto.randomBytes(32).toString("hex")}\n`, { mode: 0o600 });
  return { file, value: fs.readFileSync(file, "utf8").trim() };
}

/**
 * What every runner of the cluster shares: one admin token (they share the database) and BERTH_CLUSTER_SECRET, with
 * which a runner signs what it forwards to a session's owner (apps/runner/src/cluster/forward-marker.ts).
 */
export function ensureClusterSecrets(dataDir) {
  const admin = clusterSecret(dataDir, "admin-token");
  return { tokenFile: admin.file, token: admin.value, clusterSecret: clusterSecret(dataDir, "cluster-secret").value };
}

/**
 * Starts runner a, runner b, the web app and nginx, waiting for each to answer. `databaseUrl`, `redisUrl`,
 * `dockerHosts` (a BERTH_DOCKER_HOSTS value), `token` and `clusterSecret` are shared by the runners; `out`/`err` get every child's
 * lines, prefixed with its name. Resolves with the children, the URL and `stop`.
 */
export async function startCluster(root, { dataDir, env, ports, databaseUrl, redisUrl, dockerHosts, token, clusterSecret, out, err }) {
  const children = [];
  const spawnChild = (name, command, args, childEnv, cwd = root) => {
    const child = spawn(command, args, { cwd, env: childEnv, stdio: ["ignore", "pipe", "pipe"] });
    prefixed(child.stdout, name, out);
    prefixed(child.stderr, name, err);
    child.name = name;
    children.push(child);
    return child;
  };
  const stop = () => {
    for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
  };
  const base = { ...env, NEXT_TELEMETRY_DISABLED: "1", BERTH_HOST: "127.0.0.1" };
  try {
    const runners = ["a", "b"].map((id, i) => {
      const url = `http://127.0.0.1:${ports.runners[i]}`;
      const runnerEnv = {
        ...base,
        BERTH_RUNNER_ID: id,
        BERTH_RUNNER_PORT: String(ports.runners[i]),
        BERTH_RUNNER_URL: url,
        // The page's origin is the proxy's: the runners answer its Host, allow its Origin and build share links on it.
        BERTH_WEB_PORT: String(ports.proxy),
        BERTH_DATA_DIR: path.join(dataDir, `runner-${id}`),
        BERTH_ADMIN_TOKEN: token,
        BERTH_CLUSTER_SECRET: clusterSecret,
        DATABASE_URL: databaseUrl,
        BERTH_REDIS_URL: redisUrl,
        BERTH_DOCKER_HOSTS: dockerHosts,
      };
      return { url, child: spawnChild(`runner-${id}`, process.execPath, [path.join(root, "apps/runner/dist/main.mjs")], runnerEnv) };
    });
    // Both at once: each reconciles its own containers; they agree on migrations under PostgreSQL's advisory lock.
    await Promise.all(runners.map(({ url, child }) => waitForHttp(`${url}/healthz`, child, child.name, 90_000)));
    const proxyUrl = `http://127.0.0.1:${ports.proxy}`;
    const web = spawnChild(
      "web",
      process.execPath,
      ["server.mjs"],
      // The web app's own calls to the runners go through the proxy too, so they survive a runner going down.
      { ...base, BERTH_WEB_PORT: String(ports.web), BERTH_RUNNER_URL: proxyUrl },
      path.join(root, "apps/web"),
    );
    await waitForHttp(`http://127.0.0.1:${ports.web}/`, web, "web", 90_000);
    const nginxDir = path.join(dataDir, "nginx");
    const conf = writeNginxConf({
      port: ports.proxy,
      runners: ports.runners.map((p) => `127.0.0.1:${p}`),
      web: `127.0.0.1:${ports.web}`,
      dir: nginxDir,
    });
    const [nginx, nginxArgs] = nginxCommand(nginxDir, conf);
    const proxy = spawnChild("nginx", nginx, nginxArgs, base);
    await waitForHttp(`${proxyUrl}/healthz`, proxy, "nginx", 30_000);
    return { children, stop, url: proxyUrl, runners: runners.map((r) => r.url), web: `http://127.0.0.1:${ports.web}`, nginxConf: conf };
  } catch (error) {
    stop();
    throw error;
  }
}
