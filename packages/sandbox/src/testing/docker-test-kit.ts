import { randomBytes } from "node:crypto";
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import Docker from "dockerode";
import type { ToolResult } from "@berth/protocol";
import type { SandboxDriver } from "../driver";
import { SandboxLabel } from "../docker/sandbox-labels";

const run = promisify(execFile);

export const docker = new Docker();

/** A runner id of its own per test file, so cleanup touches nothing else. */
export function testRunnerId(name: string): string {
  return `test-${name}-${randomBytes(4).toString("hex")}`;
}

/** Removes every container and volume carrying the runner's label. */
export async function cleanupRunner(runnerId: string): Promise<void> {
  const filters = { label: [`${SandboxLabel.Runner}=${runnerId}`] };
  const containers = await docker.listContainers({ all: true, filters });
  await Promise.allSettled(containers.map((c) => docker.getContainer(c.Id).remove({ force: true })));
  const { Volumes } = await docker.listVolumes({ filters });
  await Promise.allSettled((Volumes ?? []).map((v) => docker.getVolume(v.Name).remove()));
}

/** `docker ps -a --filter label=berth.runner=<id>` through the CLI, as an operator would check. */
export async function dockerPsNames(runnerId: string): Promise<string[]> {
  const { stdout } = await run("docker", [
    "ps",
    "-a",
    "--filter",
    `label=${SandboxLabel.Runner}=${runnerId}`,
    "--format",
    "{{.Names}}",
  ]);
  return stdout.split("\n").filter(Boolean).sort();
}

export async function dockerVolumeNames(runnerId: string): Promise<string[]> {
  const { stdout } = await run("docker", [
    "volume",
    "ls",
    "-q",
    "--filter",
    `label=${SandboxLabel.Runner}=${runnerId}`,
  ]);
  return stdout.split("\n").filter(Boolean).sort();
}

export interface ExecDetails {
  exitCode: number;
  stdout: string;
  stderr: string;
  timedOut: boolean;
}

let callSeq = 0;
export function nextCallId(): string {
  return `call-${process.pid}-${++callSeq}`;
}

/** bash exec through the agent, as a tool call from the session would. */
export async function sh(
  driver: SandboxDriver,
  sessionId: string,
  command: string,
  timeoutMs = 30_000,
): Promise<ExecDetails> {
  const result = await driver.call(sessionId, {
    tool: "bash",
    args: { action: "exec", command, timeoutMs },
    callId: nextCallId(),
  });
  if (!result.details) throw new Error(`bash gave no details: ${result.output}`);
  return result.details as unknown as ExecDetails;
}

export function tool(
  driver: SandboxDriver,
  sessionId: string,
  name: string,
  args: Record<string, unknown>,
): Promise<ToolResult> {
  return driver.call(sessionId, { tool: name, args, callId: nextCallId() });
}
