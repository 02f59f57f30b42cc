import { execFileSync } from "node:child_process";
import fs from "node:fs";
import type { Socket } from "socket.io-client";
import type { ChildRunner } from "../testing/child-runner";

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function newSession(runner: ChildRunner): Promise<string> {
  const { status, body } = await runner.api<{ id: string }>("POST", "/api/sessions", { autonomy: "trusted" });
  if (status !== 201) throw new Error(`create session: ${status} ${JSON.stringify(body)}`);
  return body.id;
}

export async function tool(
  runner: ChildRunner,
  session: string,
  name: string,
  args: unknown,
): Promise<{ ok: boolean; details?: Record<string, unknown> }> {
  const { status, body } = await runner.api<{ ok: boolean; details?: Record<string, unknown> }>(
    "POST",
    `/api/sessions/${session}/tools/${name}`,
    { args },
  );
  if (status !== 200 || !body.ok) throw new Error(`${name}: ${status} ${JSON.stringify(body).slice(0, 200)}`);
  return body;
}

export function ack<T>(socket: Socket, event: string, payload: unknown): Promise<T> {
  return new Promise((resolve, reject) =>
    socket.emit(event, payload, (error: unknown, result: T) =>
      error ? reject(new Error(`${event}: ${JSON.stringify(error)}`)) : resolve(result),
    ),
  );
}

export async function waitFor(what: string, check: () => boolean, ms = 30_000): Promise<void> {
  const until = Date.now() + ms;
  while (!check()) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await sleep(100);
  }
}

export function containerArgs(sessionId: string): string {
  const id = execFileSync("docker", ["ps", "-q", "--filter", `label=berth.session=${sessionId}`], {
    encoding: "utf8",
  }).trim();
  return id ? execFileSync("docker", ["top", id, "-eo", "pid,args"], { encoding: "utf8" }) : "";
}

/** What this runner owns in Docker (by its runner label) and holds open. */
export function resources(runner: ChildRunner): { containers: number; volumes: number; fds: number } {
  const count = (args: string[]) =>
    execFileSync("docker", args, { encoding: "utf8" }).split("\n").filter(Boolean).length;
  const label = `label=berth.runner=${runner.runnerId}`;
  const pid = runner.pid();
  return {
    containers: count(["ps", "-aq", "--filter", label]),
    volumes: count(["volume", "ls", "-q", "--filter", label]),
    fds: pid ? fs.readdirSync(`/proc/${pid}/fd`).length : 0,
  };
}

/** The runner's resident set in KiB; the process is node under tsx (its own pid, no wrapper). */
export function rssKiB(runner: ChildRunner): number {
  const pid = runner.pid();
  if (!pid) return 0;
  const match = /VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, "utf8"));
  return match ? Number(match[1]) : 0;
}

export function pct(sorted: number[], p: number): string {
  return (sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? 0).toFixed(0);
}
