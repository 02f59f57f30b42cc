// npm run bench:output — a run_script printing 100 MB through the runner (agent channel, logs, hashes, receipt)
// against `docker exec` of the same script in the same container into a host pipe. Alternated rounds, medians,
// the load average printed; every round's stored stdout log and its receipt digest are checked by sha256.
import { spawn } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import { RunLogs } from "../runs/run-logs";
import { startTestRunner, type TestRunner } from "../testing/runner-test-kit";
import { percentile } from "./bench-stats";

const CHUNK = 64 * 1024;
const CHUNKS = 1600;
const BYTES = CHUNK * CHUNKS;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const LINE = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTU\n";
const SCRIPT = [
  "import sys",
  `chunk = (${JSON.stringify(LINE)} * ${Math.ceil(CHUNK / LINE.length)}).encode()[:${CHUNK}]`,
  "out = sys.stdout.buffer",
  `for _ in range(${CHUNKS}):`,
  "    out.write(chunk)",
  "out.flush()",
].join("\n");

const chunk = Buffer.from(LINE.repeat(Math.ceil(CHUNK / LINE.length))).subarray(0, CHUNK);
const expected = (() => {
  const hash = crypto.createHash("sha256");
  for (let i = 0; i < CHUNKS; i++) hash.update(chunk);
  return hash.digest("hex");
})();

/** `docker exec` of the script as the workspace user, its stdout read into this process through a pipe. */
function dockerExec(container: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn("docker", ["exec", "-u", "1000:1000", "-w", "/workspace", container, "python3", "print.py"], {
      stdio: ["ignore", "pipe", "inherit"],
    });
    let bytes = 0;
    child.stdout.on("data", (data: Buffer) => (bytes += data.length));
    child.on("error", reject);
    child.on("close", (code) => (code === 0 ? resolve(bytes) : reject(new Error(`docker exec exited ${code}`))));
  });
}

function sha256Of(file: string): string {
  const hash = crypto.createHash("sha256");
  const fd = fs.openSync(file, "r");
  const buffer = Buffer.alloc(4 * 1024 * 1024);
  try {
    for (let n; (n = fs.readSync(fd, buffer, 0, buffer.length, null)) > 0; ) hash.update(buffer.subarray(0, n));
  } finally {
    fs.closeSync(fd);
  }
  return hash.digest("hex");
}

// BERTH_LOG_STORE names the log store; `local,database` (on PostgreSQL, BERTH_TEST_POSTGRES_URL) runs one runner
// of each, their rounds alternated with the exec in one run: the database store's figure against the files-only one.
const stores = (process.env.BERTH_LOG_STORE ?? "").split(",").filter((s) => s.length > 0);
interface Subject {
  name: string;
  kit: TestRunner;
  session: string;
  times: number[];
}
const subjects: Subject[] = [];
try {
  for (const store of stores.length > 0 ? stores : [""]) {
    const env = { ...(process.env.BERTH_SANDBOX_IMAGE ? { BERTH_SANDBOX_IMAGE: process.env.BERTH_SANDBOX_IMAGE } : {}), ...(store ? { BERTH_LOG_STORE: store } : {}) };
    const kit = await startTestRunner({ env });
    const subject: Subject = { name: store || "default", kit, session: "", times: [] };
    subjects.push(subject);
    subject.session = await kit.createSession({ autonomy: "yolo" });
    const written = await kit.tool<{ ok: boolean; output: string }>(subject.session, "write_file", { path: "print.py", content: SCRIPT });
    if (!written.body.ok) throw new Error(`write_file: ${written.body.output}`);
  }
  const container = `berth-s-${subjects[0]!.session}`;

  const exec: number[] = [];
  let checked = 0;
  const viaRunner = async ({ kit, session, times }: Subject) => {
    const started = performance.now();
    const ran = await kit.tool<{ ok: boolean; output: string; runId: string }>(session, "run_script", {
      interpreter: "python3",
      script: "print.py",
      timeoutMs: 300_000,
    });
    times.push(performance.now() - started);
    if (!ran.body.ok) throw new Error(`run_script: ${ran.body.output}`);
    // Every byte, as stored and as the receipt seals it.
    const stored = sha256Of(RunLogs.pathFor(kit.dataDir, ran.body.runId, "stdout"));
    const run = (await kit.api<{ run: { receiptId: string } }>("GET", `/api/runs/${ran.body.runId}`)).body.run;
    const receipt = (await kit.api<{ body: { logs: { name: string; sha256: string; bytes: number }[] } }>("GET", `/api/receipts/${run.receiptId}`)).body;
    const sealed = receipt.body.logs.find((l) => l.name === "stdout");
    if (stored !== expected || sealed?.sha256 !== expected || sealed.bytes !== BYTES)
      throw new Error(`run ${ran.body.runId}: stored ${stored}, sealed ${sealed?.sha256} (${sealed?.bytes} B), expected ${expected}`);
    checked++;
  };
  const viaExec = async () => {
    const started = performance.now();
    const bytes = await dockerExec(container);
    exec.push(performance.now() - started);
    if (bytes !== BYTES) throw new Error(`docker exec printed ${bytes} bytes, expected ${BYTES}`);
  };

  // One warm-up of each (page cache, python's first start), then alternated rounds, the order turned each round.
  const steps = [viaExec, ...subjects.map((s) => () => viaRunner(s))];
  for (const step of steps) await step();
  for (const s of subjects) s.times.length = 0;
  exec.length = 0;
  for (let i = 0; i < ROUNDS; i++) {
    for (let j = 0; j < steps.length; j++) await steps[(i + j) % steps.length]!();
  }

  const execMs = percentile(exec, 50);
  console.log("\nBerth output bench: run_script printing 100 MB, through the runner vs docker exec into a host pipe\n");
  console.log(`load average: ${os.loadavg().map((n) => n.toFixed(2)).join(" ")}`);
  console.log(`database: ${subjects[0]!.kit.databaseKind}; log stores: ${subjects.map((s) => s.name).join(", ")}; ${ROUNDS} rounds`);
  for (const { name, times } of subjects) {
    const ms = percentile(times, 50);
    console.log(`run_script through the runner, log store ${name} (HTTP, agent channel, logs, receipt): median ${ms.toFixed(0)} ms  [${times.map((t) => t.toFixed(0)).join(", ")}]  ${(ms / execMs).toFixed(2)}x exec`);
  }
  console.log(`docker exec of the same script, same container, into a host pipe:  median ${execMs.toFixed(0)} ms  [${exec.map((t) => t.toFixed(0)).join(", ")}]`);
  console.log(`sha256 of every byte stored and sealed checked in ${checked} runs`);
  for (const { name, times } of subjects) {
    const ms = percentile(times, 50);
    console.log(
      `bench-figure ${JSON.stringify({ figure: `run_script printing 100 MB, log store ${name} (median)`, value: ms, unit: "ms", baseline: "docker exec into a host pipe", baselineValue: execMs, target: "≤ 1.5x", ok: ms / execMs <= 1.5 })}`,
    );
  }
  const local = subjects.find((s) => s.name === "local");
  const database = subjects.find((s) => s.name === "database");
  if (local && database) {
    const localMs = percentile(local.times, 50);
    const databaseMs = percentile(database.times, 50);
    console.log(`database store against files only: ${(databaseMs / localMs).toFixed(2)}x (target ≤ 1.5x)`);
    console.log(
      `bench-figure ${JSON.stringify({ figure: "run_script printing 100 MB, database log store (median)", value: databaseMs, unit: "ms", baseline: "the same with the files only", baselineValue: localMs, target: "≤ 1.5x", ok: databaseMs / localMs <= 1.5 })}`,
    );
  }
} finally {
  for (const { kit } of subjects) await kit.close();
}
