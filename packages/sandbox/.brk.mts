import Docker from "dockerode";
import { PassThrough } from "node:stream";
import { hardenedHostConfig, DEFAULT_LIMITS } from "./src/index.ts";
const docker = new Docker();
for (let i = 0; i < 6; i++) {
  const t: Record<string, number> = {}; let last = performance.now(); const mark = (k: string) => { const n = performance.now(); t[k] = Math.round(n - last); last = n; };
  const vol = "brk-" + i + "-" + Date.now();
  await docker.createVolume({ Name: vol }); mark("vol");
  const c = await docker.createContainer({ Image: "berth-sandbox:latest", User: "1000:1000", OpenStdin: true, AttachStdin: true, AttachStdout: true, AttachStderr: true, StdinOnce: false, Tty: false, NetworkDisabled: true, HostConfig: hardenedHostConfig({ volumeName: vol, limits: DEFAULT_LIMITS, network: "none" }) }); mark("create");
  const s = await c.attach({ stream: true, stdin: true, stdout: true, stderr: true, hijack: true }) as any; mark("attach");
  const out = new PassThrough(); docker.modem.demuxStream(s, out, new PassThrough());
  const got = new Promise<void>((r) => out.once("data", () => r()));
  await c.start(); mark("start");
  s.write(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "agent.hello", params: {} }) + "\n");
  await got; mark("hello");
  console.log(JSON.stringify(t));
  await c.remove({ force: true }); await docker.getVolume(vol).remove();
}
