// npm run bench:stream — a run printing 100 MB watched live by 50 socket.io clients. Checks every client
// got every byte in order (sha256 against the log the runner stored), that a client which disconnects
// and resumes from its offset misses nothing, and measures the runner's throughput and memory.
import { spawn } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { io as connect, type Socket } from "socket.io-client";
import { migrate } from "../testing/runner-test-kit";

const ROOT = path.resolve(import.meta.dirname, "../../../..");
const TOKEN = "stream-bench-admin-token-0123456789";
const PORT = 4391;
const CLIENTS = 50;
const BYTES = 100 * 1024 * 1024;

function rssOf(pid: number): number {
  const status = fs.readFileSync(`/proc/${pid}/status`, "utf8");
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? 0) * 1024;
}

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "berth-stream-bench-"));
migrate(dataDir);
const runner = spawn(process.execPath, [path.join(ROOT, "apps/runner/dist/main.mjs")], {
  env: {
    ...process.env,
    BERTH_DATA_DIR: dataDir,
    BERTH_RUNNER_PORT: String(PORT),
    BERTH_ADMIN_TOKEN: TOKEN,
    BERTH_WARM_POOL: "0",
    BERTH_LOG_LEVEL: "warn",
    BERTH_RUNNER_ID: "stream-bench",
  },
  stdio: ["ignore", "pipe", "inherit"],
});
const base = `http://127.0.0.1:${PORT}`;
const api = async <T>(method: string, route: string, body?: unknown): Promise<T> => {
  const response = await fetch(`${base}${route}`, {
    method,
    headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  // DELETE answers 204 with no body: only a body is JSON.
  const text = await response.text();
  if (!response.ok) throw new Error(`${method} ${route}: ${response.status} ${text.slice(0, 200)}`);
  return (text ? JSON.parse(text) : undefined) as T;
};

try {
  for (let i = 0; i < 100; i++) {
    try {
      if ((await fetch(`${base}/healthz`)).ok) break;
    } catch {
      /* starting */
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  const session = await api<{ id: string }>("POST", "/api/sessions", { autonomy: "yolo" });
  const rssBefore = rssOf(runner.pid!);
  let peakRss = rssBefore;
  const sampler = setInterval(() => (peakRss = Math.max(peakRss, rssOf(runner.pid!))), 100);

  // The command waits for the watchers to subscribe, then prints 100 MB.
  const requestedAt = performance.now();
  const started = await api<{ runId: string }>("POST", `/api/sessions/${session.id}/tools/bash`, {
    args: {
      action: "start",
      command: `sleep 3; yes 0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTU | head -c ${BYTES}`,
    },
  });
  const runId = started.runId;

  type Watcher = { socket: Socket; hash: crypto.Hash; received: number; firstByteAt?: number; done: Promise<void> };
  const watch = (offset: number, hash = crypto.createHash("sha256"), received = 0): Watcher => {
    const socket = connect(base, { auth: { token: TOKEN }, transports: ["websocket"], forceNew: true });
    const watcher: Watcher = { socket, hash, received, done: Promise.resolve() };
    watcher.done = new Promise<void>((resolve, reject) => {
      socket.on("run:output", (event: { stream: string; offset: number; data: string }) => {
        if (event.stream !== "stdout") return;
        if (event.offset !== watcher.received)
          reject(new Error(`gap or duplicate: got offset ${event.offset}, expected ${watcher.received}`));
        const bytes = Buffer.from(event.data);
        watcher.firstByteAt ??= performance.now();
        watcher.hash.update(bytes);
        watcher.received += bytes.length;
        if (watcher.received >= BYTES) resolve();
      });
      socket.on("connect", () =>
        socket.emit("run:subscribe", { runId, offset: { stdout: watcher.received, stderr: 0 } }, () => undefined),
      );
    });
    return watcher;
  };
  const watchers = Array.from({ length: CLIENTS }, () => watch(0));

  // One client drops out part-way and resumes from its last offset on a new connection.
  const dropper = watchers[0]!;
  const resumed = new Promise<Watcher>((resolve) => {
    const check = setInterval(() => {
      if (dropper.received > 20 * 1024 * 1024) {
        clearInterval(check);
        dropper.socket.disconnect();
        setTimeout(() => resolve(watch(dropper.received, dropper.hash, dropper.received)), 500);
      }
    }, 20);
  });
  const replacement = await resumed;
  const all = [...watchers.slice(1), replacement];
  await Promise.all(all.map((w) => w.done));
  const finishedAt = performance.now();
  clearInterval(sampler);

  const stored = crypto
    .createHash("sha256")
    .update(fs.readFileSync(path.join(dataDir, "runs", runId, "stdout.log")))
    .digest("hex");
  const digests = new Set(all.map((w) => w.hash.digest("hex")));
  // The command sleeps 3 s before printing, so a first byte is due 3 s after the start request.
  const firstBytes = all.map((w) => (w.firstByteAt ?? finishedAt) - requestedAt - 3000).sort((a, b) => a - b);
  const seconds = (finishedAt - requestedAt - 3000) / 1000;

  console.log("\nBerth stream bench: 100 MB run output, 50 live socket.io clients (runner in its own process)\n");
  console.log(
    `every client got every byte in order:   ${digests.size === 1 && digests.has(stored) ? "yes" : "NO"} (sha256 ${stored.slice(0, 16)}…, ${all.length} clients)`,
  );
  console.log(
    `client that disconnected and resumed:   ${replacement.hash === dropper.hash ? "resumed from its offset, same checksum" : "?"}`,
  );
  console.log(
    `throughput per client:                  ${(BYTES / 1024 / 1024 / seconds).toFixed(1)} MB/s (${((BYTES * CLIENTS) / 1024 / 1024 / seconds).toFixed(0)} MB/s fan-out)`,
  );
  console.log(
    `time to first byte (median, start request + 3 s sleep → client): ${firstBytes[Math.floor(firstBytes.length / 2)]!.toFixed(0)} ms`,
  );
  console.log(
    `runner RSS: before ${(rssBefore / 1048576).toFixed(0)} MB, peak ${(peakRss / 1048576).toFixed(0)} MB, growth ${((peakRss - rssBefore) / 1048576).toFixed(0)} MB (target < 100 MB)`,
  );
  const inOrder = digests.size === 1 && digests.has(stored);
  const growthMb = (peakRss - rssBefore) / 1048576;
  for (const figure of [
    {
      figure: "every client got every byte in order",
      value: inOrder ? 1 : 0,
      unit: "",
      target: "1 (all 50 clients)",
      ok: inOrder,
    },
    { figure: "throughput per client", value: BYTES / 1024 / 1024 / seconds, unit: "MB/s" },
    { figure: "time to first byte (median)", value: firstBytes[Math.floor(firstBytes.length / 2)]!, unit: "ms" },
    { figure: "runner RSS growth", value: growthMb, unit: "MB", target: "< 100 MB", ok: growthMb < 100 },
  ])
    console.log(`bench-figure ${JSON.stringify(figure)}`);
  for (const w of all) w.socket.disconnect();
  await api("DELETE", `/api/sessions/${session.id}`);
} finally {
  runner.kill("SIGTERM");
  await new Promise((r) => runner.once("exit", r));
  fs.rmSync(dataDir, { recursive: true, force: true });
}
