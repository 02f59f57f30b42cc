import { DockerSandboxDriver } from "./src/index.ts";
import { cleanupRunner } from "./src/testing/docker-test-kit.ts";
import { execSync } from "node:child_process";
const d = new DockerSandboxDriver({ runnerId: "c20", poolSize: 0, heartbeatIntervalMs: 0, handshakeTimeoutMs: 120_000 });
await d.start();
for (let i = 0; i < 30; i++) { const t = performance.now(); await d.acquire("m" + i); process.stdout.write((performance.now() - t).toFixed(0) + " "); }
console.log();
console.log(execSync("top -b -n 1 | head -20").toString());
console.log(execSync("docker stats --no-stream --format '{{.CPUPerc}} {{.MemUsage}}' | head -5").toString());
await d.close({ stopSessions: true }); await cleanupRunner("c20");
