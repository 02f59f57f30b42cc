import { fork } from "node:child_process";
import { KeepAliveClient } from "./keep-alive-client";

/** What the callers' process is asked to do: `count` POSTs of `body` to `url` from `callers` callers at once. */
export interface CallersJob {
  url: string;
  headers: Record<string, string>;
  body: unknown;
  count: number;
  callers: number;
}

/** What it answers: each call's latency, the wall time of them all, and its own CPU (the client's). */
export interface CallersReport {
  latencies: number[];
  wallMs: number;
  clientCpuMs: number;
}

/** The calls themselves, in whichever process runs them; a reply that is not a 200 with `ok` fails the job. */
export async function runCallers(job: CallersJob): Promise<CallersReport> {
  const client = new KeepAliveClient({ sockets: job.callers });
  const latencies: number[] = [];
  let issued = 0;
  const caller = async () => {
    while (issued++ < job.count) {
      const started = performance.now();
      const { status, body } = await client.postJson(job.url, job.headers, job.body);
      latencies.push(performance.now() - started);
      if (status !== 200 || !(body as { ok?: boolean }).ok) throw new Error(`${job.url}: ${status} ${JSON.stringify(body).slice(0, 300)}`);
    }
  };
  try {
    const cpu = process.cpuUsage();
    const started = performance.now();
    await Promise.all(Array.from({ length: job.callers }, caller));
    const wallMs = performance.now() - started;
    const { user, system } = process.cpuUsage(cpu);
    return { latencies, wallMs, clientCpuMs: (user + system) / 1000 };
  } finally {
    client.close();
  }
}

/**
 * Runs a job in a client process of its own (http-callers-child.ts), as real callers are: the runner's thread and
 * this process's CPU then serve the calls only, and the client's CPU is counted apart.
 */
export function runCallersInChild(job: CallersJob): Promise<CallersReport> {
  const child = fork(new URL("./http-callers-child.ts", import.meta.url), [], { execArgv: ["--import", "tsx"], stdio: "inherit" });
  return new Promise<CallersReport>((resolve, reject) => {
    child.once("message", (message: { report?: CallersReport; error?: string }) => {
      child.kill();
      if (message.report) resolve(message.report);
      else reject(new Error(`callers' process: ${message.error}`));
    });
    child.once("error", reject);
    child.once("exit", (code) => reject(new Error(`callers' process exited with ${code} before it answered`)));
    child.send(job);
  });
}
