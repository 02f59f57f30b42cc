// A runner that dies without cleaning up: starts sandboxes for the sessions named on the command line and a
// full warm pool, claims one warm container for `warm-<first id>`, prints their infos as one JSON line, then exits at once (as a crash or kill -9 would).
// Usage: npx tsx crash-runner.ts <runnerId> <sessionId>...
import { DockerSandboxDriver } from "../docker";

const [runnerId, ...sessionIds] = process.argv.slice(2);
if (!runnerId) throw new Error("usage: crash-runner.ts <runnerId> <sessionId>...");
const driver = new DockerSandboxDriver({ runnerId, poolSize: 1, heartbeatIntervalMs: 0 });
await driver.start();
const infos = [];
for (const sessionId of sessionIds) {
  const info = await driver.create(sessionId);
  await driver.call(sessionId, {
    tool: "write_file",
    args: { path: "marker.txt", content: `made by ${sessionId}` },
    callId: `crash-${sessionId}`,
  });
  infos.push(info);
}
await driver.whenPoolFull();
// One session takes a warm container; the crash comes before its rename can land, and mid pool refill.
infos.push(await driver.acquire(`warm-${sessionIds[0] ?? "x"}`));
process.stdout.write(`${JSON.stringify(infos)}\n`);
process.exit(0);
