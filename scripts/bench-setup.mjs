// `npm run bench:setup [-- --baseline <ref>] [--ref <ref>] [--rounds N] [--warm-npm-cache]`: the first setup on a
// fresh machine, as far as one machine can be made fresh again. Each run is a clean clone of this repo at a commit
// (--ref, default HEAD; or the baseline ref) in a new folder: no node_modules, no .berth, no turbo or Next cache, an
// empty npm cache, and a Docker engine of its own (a private dockerd with an empty image store, on a unix socket in
// the run's folder), so the offline base image is built with debootstrap and the sandbox image on top of it. Not
// fresh: apt packages already installed (docker.io, debootstrap, …) stay installed. With --baseline, rounds alternate
// baseline / ref and the table shows medians with the ratio. Root on Linux only (dockerd). Heavy: run it alone
// (`flock /tmp/berth-bench.lock npm run bench:setup`).
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { spawn, spawnSync } from "node:child_process";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const args = process.argv.slice(2);
const option = (name) => {
  const at = args.indexOf(name);
  return at === -1 ? undefined : args[at + 1];
};
const rounds = Number(option("--rounds") ?? 1);
const baseline = option("--baseline");
const measured = option("--ref") ?? "HEAD";
const warmNpmCache = args.includes("--warm-npm-cache");
const BRIDGE = "berthbench0";
const BRIDGE_ADDRESS = "10.213.77.1/24";

const loadavg = () =>
  os
    .loadavg()
    .map((n) => n.toFixed(2))
    .join(" ");

function sh(cmd, cmdArgs, options = {}) {
  const result = spawnSync(cmd, cmdArgs, { encoding: "utf8", ...options });
  if (result.status !== 0) throw new Error(`${cmd} ${cmdArgs.join(" ")} failed: ${result.stderr || result.stdout}`);
  return result.stdout.trim();
}

/** A dockerd of our own with an empty image store; resolves with its DOCKER_HOST and a stop function. */
async function privateDocker(dir) {
  if (!fs.existsSync(`/sys/class/net/${BRIDGE}`)) {
    sh("ip", ["link", "add", BRIDGE, "type", "bridge"]);
    sh("ip", ["addr", "add", BRIDGE_ADDRESS, "dev", BRIDGE]);
    sh("ip", ["link", "set", BRIDGE, "up"]);
  }
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, "daemon.json"), "{}\n");
  const host = `unix://${path.join(dir, "docker.sock")}`;
  const log = fs.openSync(path.join(dir, "dockerd.log"), "a");
  const child = spawn(
    "dockerd",
    [
      `--config-file=${path.join(dir, "daemon.json")}`,
      `--data-root=${path.join(dir, "root")}`,
      `--exec-root=${path.join(dir, "exec")}`,
      `--pidfile=${path.join(dir, "docker.pid")}`,
      `--host=${host}`,
      `--bridge=${BRIDGE}`,
      "--iptables=false",
      "--ip6tables=false",
      "--ip-masq=false",
    ],
    { stdio: ["ignore", log, log] },
  );
  for (let i = 0; i < 120; i++) {
    const probe = spawnSync("docker", ["version", "--format", "{{.Server.Version}}"], { env: { ...process.env, DOCKER_HOST: host } });
    if (probe.status === 0) break;
    if (child.exitCode !== null) throw new Error(`private dockerd exited; see ${path.join(dir, "dockerd.log")}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  const stop = () =>
    new Promise((resolve) => {
      if (child.exitCode !== null) return resolve();
      child.once("exit", resolve);
      child.kill("SIGTERM");
    });
  return { host, stop };
}

/** Runs the setup as `npm start` does, then the migration `npm start` applies; returns seconds per step. */
async function freshSetup(ref) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "berth-bench-setup-"));
  const clone = path.join(dir, "repo");
  sh("git", ["clone", "--quiet", "--no-checkout", root, clone]);
  sh("git", ["-C", clone, "checkout", "--quiet", sh("git", ["-C", root, "rev-parse", ref])]);
  const docker = await privateDocker(path.join(dir, "docker"));
  const env = {
    ...process.env,
    DOCKER_HOST: docker.host,
    BERTH_DATA_DIR: path.join(dir, "data"),
    ...(warmNpmCache ? {} : { npm_config_cache: path.join(dir, "npm-cache") }),
  };
  delete env.CI;
  const steps = {};
  const started = performance.now();
  try {
    const script =
      "const { setup } = await import(process.argv[1]); await setup(process.argv[2], { dataDir: process.argv[3] });";
    const output = await new Promise((resolve, reject) => {
      const child = spawn(
        process.execPath,
        ["--input-type=module", "-e", script, path.join(clone, "scripts/lib/setup.mjs"), clone, env.BERTH_DATA_DIR],
        { cwd: clone, env, stdio: ["ignore", "pipe", "inherit"] },
      );
      let text = "";
      child.stdout.setEncoding("utf8");
      child.stdout.on("data", (chunk) => {
        text += chunk;
        process.stderr.write(chunk);
      });
      child.on("close", (code) => (code === 0 ? resolve(text) : reject(new Error(`setup exited with ${code}`))));
    });
    // Two formats: `• label …` then `  done in N s` (steps one after another), or `✓ label (N s)`.
    let current = null;
    for (const line of output.split("\n")) {
      const begun = /^• (.+?) …$/.exec(line);
      const done = /^ {2}done in ([\d.]+) s$/.exec(line);
      const finished = /^✓ (.+) \(([\d.]+) s\)$/.exec(line);
      if (begun) current = begun[1];
      else if (done && current) steps[current] = Number(done[1]);
      else if (finished) steps[finished[1]] = Number(finished[2]);
    }
    steps["setup (all)"] = (performance.now() - started) / 1000;
    const migrateStarted = performance.now();
    sh("npx", ["prisma", "migrate", "deploy"], { cwd: clone, env: { ...env, DATABASE_URL: "" } });
    steps["prisma migrate deploy"] = (performance.now() - migrateStarted) / 1000;
    steps["setup + migrate (first npm start before the servers)"] = (performance.now() - started) / 1000;
    return steps;
  } finally {
    await docker.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};

if (process.getuid?.() !== 0 || process.platform !== "linux") {
  console.error("bench:setup starts a private dockerd: run it as root on Linux");
  process.exit(1);
}
const variants = [...(baseline ? [["baseline", baseline]] : []), ["measured", measured]];
const results = Object.fromEntries(variants.map(([name]) => [name, []]));
const loadBefore = loadavg();
for (let round = 0; round < rounds; round++) {
  for (const [name, ref] of variants) {
    console.error(`\n##### round ${round + 1}/${rounds}: ${name} (${ref}), load ${loadavg()} #####`);
    results[name].push(await freshSetup(ref));
  }
}
try {
  if (fs.existsSync(`/sys/class/net/${BRIDGE}`)) sh("ip", ["link", "del", BRIDGE]);
} catch {
  // another run may still use it
}

const labels = [...new Set(Object.values(results).flatMap((runs) => runs.flatMap((steps) => Object.keys(steps))))];
const cell = (name, label) => {
  const values = results[name].map((steps) => steps[label]).filter((v) => typeof v === "number");
  return values.length ? median(values) : undefined;
};
console.log(`\nfresh setup, ${rounds} round(s), npm cache ${warmNpmCache ? "warm" : "empty"}; load average before ${loadBefore}, after ${loadavg()} (${os.cpus().length} CPUs)`);
console.log(["step (median s)", ...variants.map(([name, ref]) => `${name} ${ref}`), ...(baseline ? ["ratio"] : [])].join(" | "));
for (const label of labels) {
  const values = variants.map(([name]) => cell(name, label));
  const ratio = baseline && values[0] && values[1] !== undefined ? (values[1] / values[0]).toFixed(2) : "";
  console.log([label, ...values.map((v) => (v === undefined ? "—" : v.toFixed(1))), ...(baseline ? [ratio] : [])].join(" | "));
}
const total = "setup + migrate (first npm start before the servers)";
const figure = {
  figure: "first start: fresh setup + migrate",
  value: Number(cell("measured", total).toFixed(1)),
  unit: "s",
  target: "≤ 150 s",
  ok: cell("measured", total) <= 150,
  ...(baseline ? { baseline: `the same at ${baseline}`, baselineValue: Number(cell("baseline", total).toFixed(1)) } : {}),
};
console.log(`bench-figure ${JSON.stringify(figure)}`);
