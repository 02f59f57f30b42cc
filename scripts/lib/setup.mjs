// The one setup behind `npm start` and `npm test`: installs what is missing and skips what is done.
// Plain Node with no dependencies, because it runs before `npm ci`.
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { spawn } from "node:child_process";
import { runAsync, tryRun, step, SetupError } from "./proc.mjs";

export { SetupError };

const isRoot = typeof process.getuid === "function" && process.getuid() === 0;
const isDebian = fs.existsSync("/etc/debian_version");

let aptIndexFresh = false;
async function aptInstall(packages) {
  const env = { ...process.env, DEBIAN_FRONTEND: "noninteractive" };
  // A stale package index fails the install; refresh it once per setup.
  if (!aptIndexFresh) await runAsync("apt-get", ["update", "-q"], { env });
  aptIndexFresh = true;
  await runAsync("apt-get", ["install", "-y", "-q", "--no-install-recommends", ...packages], { env });
}

const onPath = (name) => (process.env.PATH ?? "").split(path.delimiter).some((dir) => dir && fs.existsSync(path.join(dir, name)));

/**
 * Every Debian package this setup would install one by one below, installed in one apt-get run first: a fresh
 * machine pays for one index refresh and one dpkg pass instead of one per package. The ensure* steps after it
 * find their package present; where this cannot install (not root, not Debian) they say what to do.
 */
export async function ensureAptPackages(root, { forTests, forCluster = false }) {
  if (!isRoot || !isDebian) return;
  const wanted = [];
  if (!dockerAnswers() && !fs.existsSync("/usr/sbin/dockerd") && !fs.existsSync("/usr/bin/dockerd")) wanted.push("docker.io");
  // The offline base image needs debootstrap; only a machine without a sandbox image builds the base.
  if (!onPath("debootstrap") && !hasSandboxImage()) wanted.push("debootstrap");
  const remoteDocker = /^(tcp|ssh|https?):/.test(process.env.DOCKER_HOST ?? "");
  if (!remoteDocker && process.platform === "linux" && !(await import("./egress-firewall.mjs")).hasIptables()) wanted.push("iptables");
  if (!["/usr/sbin/mkfs.ext4", "/sbin/mkfs.ext4"].some((file) => fs.existsSync(file))) wanted.push("e2fsprogs");
  if (forTests) {
    if (!fs.existsSync("/usr/bin/chromium")) wanted.push("chromium");
    if (!onPath("rg")) wanted.push("ripgrep");
    if (!onPath("ctags")) wanted.push("universal-ctags");
    if (!(await import("./test-postgres.mjs")).postgresBinDir()) wanted.push("postgresql");
    // The cluster tests' runners share events, approvals and revocations through Redis (scripts/lib/test-redis.mjs).
    if (!(await import("./test-redis.mjs")).redisInstalled()) wanted.push("redis-server");
    // The several-Docker-hosts tests start a second dockerd in a network namespace, over TLS (scripts/lib/netns-dockerd.mjs).
    if (!onPath("ip")) wanted.push("iproute2");
    if (!onPath("openssl")) wanted.push("openssl");
  }
  // `npm run cluster`'s second Docker engine, as for the several-hosts tests above.
  if (forCluster && !forTests) for (const [bin, pkg] of [["ip", "iproute2"], ["openssl", "openssl"]]) if (!onPath(bin)) wanted.push(pkg);
  if (wanted.length === 0) return;
  await step(`install Debian packages (apt-get install ${wanted.join(" ")})`, () => aptInstall(wanted));
}

function hasSandboxImage() {
  return tryRun("docker", ["images", "-q", "berth-sandbox"], { timeoutMs: 10_000 }).stdout.trim() !== "";
}

/** Dependencies: `npm ci` when node_modules is missing or older than the lockfile. */
export async function ensureDependencies(root) {
  const lock = path.join(root, "package-lock.json");
  const installed = path.join(root, "node_modules/.package-lock.json");
  const stale = !fs.existsSync(installed) || fs.statSync(installed).mtimeMs < fs.statSync(lock).mtimeMs;
  if (!stale) return;
  await step("install dependencies (npm ci)", () => runAsync("npm", ["ci", "--no-audit", "--no-fund"], { cwd: root, inherit: true }));
}

function dockerAnswers() {
  return tryRun("docker", ["version", "--format", "{{.Server.Version}}"], { timeoutMs: 10_000 }).ok;
}

/** An engine that answers, or one setup can install (root on Debian); otherwise one line saying what to do. */
function assertDockerObtainable() {
  if (isRoot && isDebian) return;
  if (dockerAnswers()) return;
  throw new SetupError(
    "no Docker engine answers: install Docker (https://docs.docker.com/engine/install/) and start it, or set DOCKER_HOST; as root on Debian setup installs it itself",
  );
}

/**
 * A Docker engine that answers: the one configured (DOCKER_HOST or the local socket), or — as root on
 * Debian — docker.io installed with apt and dockerd started in the background, its log in the data dir.
 */
export async function ensureDocker(dataDir) {
  if (dockerAnswers()) return;
  assertDockerObtainable();
  if (!fs.existsSync("/usr/sbin/dockerd") && !fs.existsSync("/usr/bin/dockerd")) {
    await step("install Docker engine (apt-get install docker.io)", () => aptInstall(["docker.io"]));
  }
  await step("start dockerd", async () => {
    fs.mkdirSync(dataDir, { recursive: true });
    const log = fs.openSync(path.join(dataDir, "dockerd.log"), "a", 0o600);
    const child = spawn("dockerd", [], { detached: true, stdio: ["ignore", log, log] });
    child.unref();
    for (let i = 0; i < 60; i++) {
      if (dockerAnswers()) return;
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
    throw new SetupError(`dockerd did not answer within 30 s; see ${path.join(dataDir, "dockerd.log")}`);
  });
}

/**
 * The egress firewall (scripts/lib/egress-firewall.mjs): egress sessions reach the internet, never this host or
 * private networks. Refreshed on every setup (idempotent); iptables comes from Debian when missing. Not root, or a
 * remote engine: nothing can be installed here, so it says so (the runner warns again at start).
 */
export async function ensureEgressFirewall() {
  const remote = /^(tcp|ssh|https?):/.test(process.env.DOCKER_HOST ?? "");
  if (remote) {
    process.stdout.write("• egress firewall skipped: DOCKER_HOST is remote; install it on that host (node scripts/egress-firewall.mjs install)\n");
    return;
  }
  if (!isRoot || process.platform !== "linux") {
    process.stdout.write(
      "• egress firewall NOT installed (needs root on Linux): sessions with network egress can reach this host; run `sudo node scripts/egress-firewall.mjs install`\n",
    );
    return;
  }
  const firewall = await import("./egress-firewall.mjs");
  if (!firewall.hasIptables()) {
    if (!isDebian) throw new SetupError("iptables is missing: install it, then run setup again (it firewalls egress sessions off this host)");
    await step("install iptables (apt-get install iptables)", () => aptInstall(["iptables"]));
  }
  await step("egress firewall (iptables: egress sessions reach the internet, not this host)", () => firewall.installEgressFirewall());
}

/** mkfs.ext4 for size-limited workspaces (packages/sandbox/src/docker/workspace-quota.ts); without it the runner warns. */
export async function ensureWorkspaceTools() {
  const found = ["/usr/sbin/mkfs.ext4", "/sbin/mkfs.ext4"].some((file) => fs.existsSync(file));
  if (found || !isRoot || !isDebian) return;
  await step("install e2fsprogs (mkfs.ext4 for workspace size limits)", () => aptInstall(["e2fsprogs"]));
}

/** Debian's chromium for Playwright (browsers cannot be downloaded here). */
export async function ensureChromium() {
  if (fs.existsSync("/usr/bin/chromium")) return;
  if (!isRoot || !isDebian) throw new SetupError("Chromium is missing: install it (apt-get install chromium) to run the e2e tests");
  await step("install Chromium (apt-get install chromium)", () => aptInstall(["chromium"]));
}

/** ripgrep on the host for the agent's grep unit tests (the sandbox image has its own). */
export async function ensureRipgrep() {
  if (onPath("rg")) return;
  if (!isRoot || !isDebian) throw new SetupError("ripgrep is missing: install it (apt-get install ripgrep) to run the unit tests");
  await step("install ripgrep (apt-get install ripgrep)", () => aptInstall(["ripgrep"]));
}

/** Universal Ctags on the host for the agent's code_nav unit tests (the sandbox image has its own). */
export async function ensureCtags() {
  if (onPath("ctags")) return;
  if (!isRoot || !isDebian) throw new SetupError("ctags is missing: install it (apt-get install universal-ctags) to run the unit tests");
  await step("install Universal Ctags (apt-get install universal-ctags)", () => aptInstall(["universal-ctags"]));
}

/** A data dir we can write, or one line saying what to do. */
export function ensureDataDir(dataDir) {
  try {
    // Private to this user: the database, run logs and keys go here (the runner fixes modes at start too).
    fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 });
    fs.chmodSync(dataDir, 0o700);
    fs.accessSync(dataDir, fs.constants.W_OK);
    const probe = path.join(dataDir, `.write-probe-${process.pid}`);
    fs.writeFileSync(probe, "");
    fs.rmSync(probe);
  } catch {
    throw new SetupError(`data dir ${dataDir} is not writable: set BERTH_DATA_DIR to a writable folder`);
  }
}

function hashOf(files) {
  const hash = crypto.createHash("sha256");
  for (const file of files) if (fs.existsSync(file)) hash.update(fs.readFileSync(file));
  return hash.digest("hex");
}

/** Prisma clients, generated when the schema changes. Migrations are applied by startServers. */
export async function ensurePrismaClients(root) {
  const { writePostgresSchema } = await import("./prisma-schemas.mjs");
  writePostgresSchema(root);
  const schemas = ["prisma/schema.prisma", "prisma/postgres/schema.prisma"];
  const stamp = path.join(root, "packages/db/src/generated/.schema-hash");
  const current = hashOf(schemas.map((s) => path.join(root, s)).concat(path.join(root, "package-lock.json")));
  if (!fs.existsSync(stamp) || fs.readFileSync(stamp, "utf8") !== current) {
    await step("generate Prisma clients", async () => {
      await Promise.all(schemas.map((schema) => runAsync("npx", ["prisma", "generate", "--schema", schema], { cwd: root })));
      fs.writeFileSync(stamp, current);
    });
  }
}

/** Builds the packages (turbo caches: a second run replays outputs in about a second). */
export async function buildAll(root) {
  await step("build agent, runner and web app (turbo, cached)", () =>
    runAsync("npx", ["turbo", "run", "build", "--output-logs=errors-only"], {
      cwd: root,
      env: { ...process.env, NEXT_TELEMETRY_DISABLED: "1", TURBO_TELEMETRY_DISABLED: "1", DO_NOT_TRACK: "1" },
    }),
  );
}

/** `base`: the base image's promise when it was started early (a machine with no sandbox image yet). */
export async function ensureSandboxImageBuilt(root, base) {
  const { ensureSandboxImage } = await import("./sandbox-image.mjs");
  const { image, built } = await ensureSandboxImage(root, { agentBundle: path.join(root, "packages/agent/dist/berth-agent.mjs"), base });
  if (!built) process.stdout.write(`• sandbox image ${image} is up to date\n`);
  return image;
}

/** Waits for every promise, then throws the first failure: no step is left running behind an error. */
async function allSettled(promises) {
  const results = await Promise.allSettled(promises);
  const failed = results.find((result) => result.status === "rejected");
  if (failed) throw failed.reason;
  return results.map((result) => result.value);
}

/**
 * Everything `npm start` and `npm test` need before servers or tests run. Two lines run side by side, since
 * neither needs the other until the sandbox image: the machine's (apt, dockerd, firewall, npm test's PostgreSQL,
 * the base image — on a fresh machine debootstrap, mostly downloads) and the node one (npm ci, Prisma, the
 * builds, mostly CPU).
 */
export async function setup(root, { dataDir, forTests = false, forCluster = false }) {
  const started = Date.now();
  ensureDataDir(dataDir);
  // Before minutes of npm ci, since the two lines below only meet at the end.
  assertDockerObtainable();
  const machine = (async () => {
    await ensureAptPackages(root, { forTests, forCluster });
    await ensureDocker(dataDir);
    await ensureEgressFirewall();
    await ensureWorkspaceTools();
    let testPostgresUrl = null;
    let testRedisUrl = null;
    if (forTests) {
      await ensureChromium();
      await ensureRipgrep();
      await ensureCtags();
      const { ensureTestPostgres } = await import("./test-postgres.mjs");
      testPostgresUrl = await ensureTestPostgres({ aptInstall, isRoot, isDebian });
      const { ensureTestRedis } = await import("./test-redis.mjs");
      testRedisUrl = await ensureTestRedis({ aptInstall, isRoot, isDebian });
    }
    // `npm run cluster` (and the cluster test through the proxy): nginx from Debian; the cluster's own database on the
    // PostgreSQL server, and a Redis of its own, so its channels never mix with a test run's on the same machine.
    if (forTests || forCluster) await (await import("./nginx-conf.mjs")).ensureNginx({ aptInstall, isRoot, isDebian, step });
    if (forCluster) {
      const { ensureTestPostgres } = await import("./test-postgres.mjs");
      testPostgresUrl = await ensureTestPostgres({ aptInstall, isRoot, isDebian });
      const { ensureTestRedis } = await import("./test-redis.mjs");
      testRedisUrl = await ensureTestRedis({ aptInstall, isRoot, isDebian, port: 56380, dir: "/var/lib/berth-redis-cluster" });
    }
    if (hasSandboxImage()) return { testPostgresUrl, testRedisUrl };
    const { ensureBaseImage } = await import("./sandbox-image.mjs");
    return { testPostgresUrl, testRedisUrl, base: await ensureBaseImage(root) };
  })();
  const node = (async () => {
    await ensureDependencies(root);
    await ensurePrismaClients(root);
    await buildAll(root);
  })();
  const [{ testPostgresUrl, testRedisUrl, base }] = await allSettled([machine, node]);
  await ensureSandboxImageBuilt(root, base);
  process.stdout.write(`setup finished in ${((Date.now() - started) / 1000).toFixed(1)} s (${os.hostname()})\n`);
  return { testPostgresUrl, testRedisUrl };
}
