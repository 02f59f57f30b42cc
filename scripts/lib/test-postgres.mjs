// A private PostgreSQL server for `npm test`'s PostgreSQL stages: Debian's postgresql, installed when missing, a
// cluster of its own (never the system's), listening only on 127.0.0.1 on a port of its own, password auth.
// Each test runner then creates a database of its own on it (apps/runner/src/testing/runner-test-kit.ts).
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { run, tryRun, step, SetupError } from "./proc.mjs";

export const TEST_POSTGRES_PORT = 55432;
const CLUSTER_DIR = "/var/lib/postgresql/berth-test";

export function postgresBinDir() {
  const base = "/usr/lib/postgresql";
  if (!fs.existsSync(base)) return null;
  const versions = fs
    .readdirSync(base)
    .filter((v) => fs.existsSync(path.join(base, v, "bin/postgres")))
    .sort((a, b) => Number(b) - Number(a));
  return versions.length ? path.join(base, versions[0], "bin") : null;
}

const asPostgres = (file, args, options = {}) => run("runuser", ["-u", "postgres", "--", file, ...args], options);

function answers(url) {
  return tryRun("psql", [url, "-XAtqc", "SELECT 1"], { timeoutMs: 5_000 }).ok;
}

/**
 * Starts (and first creates) the test cluster; returns a superuser URL on 127.0.0.1. The password is made once
 * and kept in the cluster's folder, readable by root and postgres only.
 */
export async function ensureTestPostgres({ aptInstall, isRoot, isDebian }) {
  let bin = postgresBinDir();
  if (!bin) {
    if (!isRoot || !isDebian) throw new SetupError("PostgreSQL is missing: install it (apt-get install postgresql) to run the PostgreSQL tests");
    await step("install PostgreSQL (apt-get install postgresql)", () => aptInstall(["postgresql"]));
    bin = postgresBinDir();
    if (!bin) throw new SetupError("apt-get install postgresql left no server binary under /usr/lib/postgresql/*/bin");
  }
  if (!isRoot) throw new SetupError("the PostgreSQL test cluster is started as the postgres user: run npm test as root");

  const passwordFile = path.join(CLUSTER_DIR, "berth-password");
  const data = path.join(CLUSTER_DIR, "data");
  if (!fs.existsSync(path.join(data, "PG_VERSION"))) {
    await step("create the PostgreSQL test cluster", () => {
      fs.rmSync(CLUSTER_DIR, { recursive: true, force: true });
      fs.mkdirSync(CLUSTER_DIR, { recursive: true, mode: 0o700 });
      fs.writeFileSync(passwordFile, crypto.randomBytes(18).toString("base64url"), { mode: 0o600 });
      run("chown", ["-R", "postgres:postgres", CLUSTER_DIR]);
      asPostgres(path.join(bin, "initdb"), [
        "-D", data, "-U", "berth", "--pwfile", passwordFile, "--auth-local=scram-sha-256", "--auth-host=scram-sha-256",
        "-E", "UTF8", "--locale=C.UTF-8",
      ]);
    });
  }
  const password = fs.readFileSync(passwordFile, "utf8").trim();
  const url = `postgresql://berth:${encodeURIComponent(password)}@127.0.0.1:${TEST_POSTGRES_PORT}/postgres`;
  if (answers(url)) return url;
  await step(`start PostgreSQL on 127.0.0.1:${TEST_POSTGRES_PORT}`, () => {
    asPostgres(path.join(bin, "pg_ctl"), [
      "-D", data, "-l", path.join(CLUSTER_DIR, "server.log"), "-w", "-t", "60",
      "-o", `-c listen_addresses=127.0.0.1 -p ${TEST_POSTGRES_PORT} -k ${CLUSTER_DIR} -c fsync=off -c max_connections=200`,
      "start",
    ]);
    if (!answers(url)) throw new SetupError(`PostgreSQL started but does not answer on ${TEST_POSTGRES_PORT}; see ${CLUSTER_DIR}/server.log`);
  });
  return url;
}
