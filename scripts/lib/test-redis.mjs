// A private Redis server for the cluster tests and `npm run cluster` (several runners sharing events, approvals and
// revocations; docs/scale-out.md): Debian's redis-server, installed when missing, started with a config of its own
// (never the system service), listening only on 127.0.0.1 on a port of its own, with a password, no persistence.
// One runner (`npm start`) needs no Redis.
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { run, tryRun, step, SetupError } from "./proc.mjs";

export const TEST_REDIS_PORT = 56379;
const REDIS_DIR = "/var/lib/berth-redis";
const SERVER = "/usr/bin/redis-server";

export const redisInstalled = () => fs.existsSync(SERVER);

// The password goes in REDISCLI_AUTH, not on a command line another process could read.
function answers(port, password) {
  const result = tryRun("redis-cli", ["-h", "127.0.0.1", "-p", String(port), "ping"], {
    env: { ...process.env, REDISCLI_AUTH: password },
    timeoutMs: 5_000,
  });
  return result.ok && result.stdout.trim() === "PONG";
}

/**
 * Starts (and first configures) the private server; returns its URL (`redis://:password@127.0.0.1:port`). The
 * password is made once and kept in the server's folder with its config, readable by root and redis only. Fast
 * when it already answers.
 */
export async function ensureTestRedis({ aptInstall, isRoot, isDebian, port = TEST_REDIS_PORT, dir = REDIS_DIR }) {
  if (!redisInstalled()) {
    if (!isRoot || !isDebian) throw new SetupError("Redis is missing: install it (apt-get install redis-server) to run the cluster tests");
    await step("install Redis (apt-get install redis-server)", () => aptInstall(["redis-server"]));
    if (!redisInstalled()) throw new SetupError(`apt-get install redis-server left no ${SERVER}`);
  }
  if (!isRoot) throw new SetupError("the Redis test server is started as the redis user: run npm test as root");

  const passwordFile = path.join(dir, "berth-password");
  if (!fs.existsSync(passwordFile)) {
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    fs.writeFileSync(passwordFile, crypto.randomBytes(18).toString("base64url"), { mode: 0o600 });
  }
  const password = fs.readFileSync(passwordFile, "utf8").trim();
  const url = `redis://:${encodeURIComponent(password)}@127.0.0.1:${port}`;
  if (answers(port, password)) return url;

  await step(`start Redis on 127.0.0.1:${port}`, () => {
    const config = path.join(dir, "redis.conf");
    // Pub/sub only: nothing is kept, so no snapshot or append-only file.
    const lines = [
      "bind 127.0.0.1",
      `port ${port}`,
      "protected-mode yes",
      `requirepass ${password}`,
      "daemonize yes",
      `dir ${dir}`,
      `pidfile ${path.join(dir, "redis.pid")}`,
      `logfile ${path.join(dir, "server.log")}`,
      'save ""',
      "appendonly no",
    ];
    fs.writeFileSync(config, `${lines.join("\n")}\n`, { mode: 0o600 });
    run("chown", ["-R", "redis:redis", dir]);
    run("chmod", ["700", dir]);
    run("runuser", ["-u", "redis", "--", SERVER, config]);
    const deadline = Date.now() + 20_000;
    while (!answers(port, password)) {
      if (Date.now() > deadline) throw new SetupError(`Redis started but does not answer on ${port}; see ${dir}/server.log`);
      run("sleep", ["0.1"]);
    }
  });
  return url;
}
