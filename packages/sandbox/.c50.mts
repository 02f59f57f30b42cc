import { DockerSandboxDriver } from "./src/index.ts";
import { cleanupRunner } from "./src/testing/docker-test-kit.ts";
const d = new DockerSandboxDriver({ runnerId: "c50", poolSize: 0, heartbeatIntervalMs: 0, handshakeTimeoutMs: 120_000 });
await d.start();
const t0 = performance.now();
const ts: number[] = [];
await Promise.all(Array.from({ length: 50 }, async (_, i) => { await d.acquire("m" + i); ts.push(performance.now() - t0); }));
console.log("all", (performance.now() - t0).toFixed(0), ts.sort((a,b)=>a-b).filter((_, i) => i % 5 === 0).map(x=>x.toFixed(0)).join(" "));
await d.close({ stopSessions: true }); await cleanupRunner("c50");
