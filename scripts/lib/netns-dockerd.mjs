// A second Docker engine on this machine, as a remote Docker host looks to a runner: its own dockerd with its own
// data root, in a network namespace of the project's, reached only over TCP with mutual TLS on a veth address.
// `npm run cluster` and the multi-host tests use it; nothing of it is reachable beyond this machine (the veth pair
// is a private /30 between the host and the namespace).
import { spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { run, tryRun, SetupError } from "./proc.mjs";

/** Defaults for the one second engine a local cluster has. */
export const NETNS_DOCKERD = {
  netns: "berth-dh2",
  hostAddress: "10.213.90.1",
  address: "10.213.90.2",
  port: 2376,
  dir: "/var/lib/berth-dockerd/dh2",
};

const DAYS = "3650";

function openssl(args, cwd) {
  run("openssl", args, { cwd });
}

/**
 * A CA, a server certificate for the engine's address and a client certificate for the runner, each made once
 * and kept 0600 under `certDir` (the Docker convention: ca.pem, cert.pem, key.pem for the client).
 */
export function ensureDockerTls(certDir, address) {
  fs.mkdirSync(certDir, { recursive: true, mode: 0o700 });
  const has = (f) => fs.existsSync(path.join(certDir, f));
  if (has("ca.pem") && has("server-cert.pem") && has("cert.pem")) return;
  const ext = path.join(certDir, "ext.cnf");
  fs.writeFileSync(
    ext,
    `[server]\nsubjectAltName=IP:${address}\nextendedKeyUsage=serverAuth\n[client]\nextendedKeyUsage=clientAuth\n`,
  );
  openssl(["genrsa", "-out", "ca-key.pem", "2048"], certDir);
  openssl(["req", "-new", "-x509", "-days", DAYS, "-key", "ca-key.pem", "-subj", "/CN=berth-docker-ca", "-out", "ca.pem"], certDir);
  for (const [name, subject, section] of [
    ["server", `/CN=${address}`, "server"],
    ["client", "/CN=berth-runner", "client"],
  ]) {
    openssl(["genrsa", "-out", `${name}-key.pem`, "2048"], certDir);
    openssl(["req", "-new", "-key", `${name}-key.pem`, "-subj", subject, "-out", `${name}.csr`], certDir);
    openssl(
      ["x509", "-req", "-days", DAYS, "-in", `${name}.csr`, "-CA", "ca.pem", "-CAkey", "ca-key.pem", "-CAcreateserial",
        "-extfile", "ext.cnf", "-extensions", section, "-out", `${name}-cert.pem`],
      certDir,
    );
  }
  fs.renameSync(path.join(certDir, "client-cert.pem"), path.join(certDir, "cert.pem"));
  fs.renameSync(path.join(certDir, "client-key.pem"), path.join(certDir, "key.pem"));
  for (const f of fs.readdirSync(certDir)) {
    if (f.endsWith(".csr") || f === "ext.cnf" || f === "ca.srl") fs.rmSync(path.join(certDir, f));
    else fs.chmodSync(path.join(certDir, f), 0o600);
  }
}

/** The namespace and the veth pair between it and the host (idempotent). */
function ensureNamespace({ netns, hostAddress, address }) {
  const hostIf = `${netns}-h`.slice(0, 15);
  const nsIf = `${netns}-n`.slice(0, 15);
  if (!tryRun("ip", ["netns", "exec", netns, "true"]).ok) run("ip", ["netns", "add", netns]);
  if (!tryRun("ip", ["link", "show", hostIf]).ok) {
    run("ip", ["link", "add", hostIf, "type", "veth", "peer", "name", nsIf]);
    run("ip", ["link", "set", nsIf, "netns", netns]);
  }
  run("ip", ["addr", "replace", `${hostAddress}/30`, "dev", hostIf]);
  run("ip", ["link", "set", hostIf, "up"]);
  run("ip", ["netns", "exec", netns, "ip", "addr", "replace", `${address}/30`, "dev", nsIf]);
  run("ip", ["netns", "exec", netns, "ip", "link", "set", nsIf, "up"]);
  run("ip", ["netns", "exec", netns, "ip", "link", "set", "lo", "up"]);
}

/** The `docker` CLI's flags for reaching the engine. */
export function dockerCliArgs({ address, port, dir }) {
  const certs = path.join(dir, "certs");
  return ["--host", `tcp://${address}:${port}`, "--tlsverify", "--tlscacert", path.join(certs, "ca.pem"),
    "--tlscert", path.join(certs, "cert.pem"), "--tlskey", path.join(certs, "key.pem")];
}

function answers(options) {
  return tryRun("docker", [...dockerCliArgs(options), "version", "--format", "{{.Server.Version}}"], { timeoutMs: 10_000 }).ok;
}

function pidAlive(pidFile) {
  try {
    process.kill(Number(fs.readFileSync(pidFile, "utf8").trim()), 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * Starts the engine (once: a running one is reused) and returns how to reach it: `url` (tcp://address:port) and
 * `certDir` with the client's ca.pem, cert.pem, key.pem. The daemon is detached: it outlives this process, as a
 * Docker host does; `stopNetnsDockerd` stops it.
 */
export async function startNetnsDockerd(overrides = {}) {
  const options = { ...NETNS_DOCKERD, ...overrides };
  const { netns, address, port, dir } = options;
  const certDir = path.join(dir, "certs");
  const result = { url: `tcp://${address}:${port}`, certDir, netns, address, port, dir };
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  ensureDockerTls(certDir, address);
  ensureNamespace(options);
  if (answers(options)) return result;
  const pidFile = path.join(dir, "docker.pid");
  if (pidAlive(pidFile)) throw new SetupError(`a dockerd of ${dir} runs (pid file ${pidFile}) but does not answer on ${result.url}`);
  const log = fs.openSync(path.join(dir, "dockerd.log"), "a");
  const daemon = spawn(
    // nsenter, not `ip netns exec`: that one also remounts /sys, hiding the cgroup hierarchy dockerd needs.
    "nsenter",
    [`--net=/run/netns/${netns}`, "dockerd",
      `--data-root=${path.join(dir, "data")}`, `--exec-root=${path.join(dir, "exec")}`, `--pidfile=${pidFile}`,
      `--host=tcp://${address}:${port}`, "--tlsverify",
      `--tlscacert=${path.join(certDir, "ca.pem")}`, `--tlscert=${path.join(certDir, "server-cert.pem")}`,
      `--tlskey=${path.join(certDir, "server-key.pem")}`,
      // Sessions run with network none; this engine needs no NAT of its own.
      "--iptables=false", "--ip6tables=false", "--ip-masq=false"],
    { stdio: ["ignore", log, log], detached: true },
  );
  daemon.unref();
  fs.closeSync(log);
  const until = Date.now() + 60_000;
  while (!answers(options)) {
    if (daemon.exitCode !== null || Date.now() > until) {
      const tail = fs.readFileSync(path.join(dir, "dockerd.log"), "utf8").slice(-1500);
      throw new SetupError(`the second dockerd did not answer on ${result.url}: ${tail}`);
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  return result;
}

/** Copies `image` from the local engine when the second one lacks it or has another build of it. */
export function loadImageInto(options, image) {
  const cli = dockerCliArgs({ ...NETNS_DOCKERD, ...options });
  const id = (args) => tryRun("docker", [...args, "image", "inspect", "--format", "{{.Id}}", image]).stdout.trim();
  // The same build, not only the same tag: an older `latest` would run an older agent.
  const present = id(cli);
  if (present && present === id([])) return false;
  const save = spawnSync("bash", ["-o", "pipefail", "-c", 'docker save "$1" | docker "${@:2}" load -q', "bash", image, ...cli], {
    stdio: ["ignore", "pipe", "pipe"],
    encoding: "utf8",
  });
  if (save.status !== 0) throw new SetupError(`loading ${image} into the second dockerd failed: ${save.stderr}`);
  return true;
}

/** Stops the engine (SIGTERM: it stops its containers) and waits for it to go. */
export async function stopNetnsDockerd(overrides = {}) {
  const { dir } = { ...NETNS_DOCKERD, ...overrides };
  const pidFile = path.join(dir, "docker.pid");
  if (!pidAlive(pidFile)) return;
  const pid = Number(fs.readFileSync(pidFile, "utf8").trim());
  process.kill(pid, "SIGTERM");
  const until = Date.now() + 30_000;
  while (pidAlive(pidFile) && Date.now() < until) await new Promise((r) => setTimeout(r, 200));
}

/** Removes the namespace and its veth pair (after `stopNetnsDockerd`). */
export function removeNetns(overrides = {}) {
  const { netns } = { ...NETNS_DOCKERD, ...overrides };
  tryRun("ip", ["link", "delete", `${netns}-h`.slice(0, 15)]);
  tryRun("ip", ["netns", "delete", netns]);
}
