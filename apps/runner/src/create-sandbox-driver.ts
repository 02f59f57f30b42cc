import os from "node:os";
import Docker from "dockerode";
import {
  DEFAULT_LIMITS,
  DockerSandboxDriver,
  createMultiHostDriver,
  defaultWarmPoolMemory,
  ensureImageOnHosts,
  type SandboxDriver,
} from "@berth/sandbox";
import { createDockerHealth } from "./docker-health";
import type { Env } from "./env";
import type { DockerHealth } from "./http/build-server";

export interface SandboxBackend {
  driver: SandboxDriver;
  /** `/healthz`'s Docker part: ok while a host answers; `hosts` lists each where there are several. */
  health: DockerHealth;
  /** Before reconcile: every host answers and has the sandbox image (loaded from the first host where missing). */
  prepare(): Promise<void>;
}

/**
 * The runner's sandbox driver: one Docker engine (DOCKER_HOST or the local socket), or several when
 * BERTH_DOCKER_HOSTS names them — the same image, posture and pool settings on each.
 */
export function createSandboxBackend(env: Env): SandboxBackend {
  const options = {
    runnerId: env.BERTH_RUNNER_ID,
    image: env.BERTH_SANDBOX_IMAGE,
    poolSize: env.BERTH_WARM_POOL,
    poolMemoryBytes:
      env.BERTH_WARM_POOL_MEMORY ??
      defaultWarmPoolMemory({ containerMemoryBytes: DEFAULT_LIMITS.memoryBytes, hostMemoryBytes: os.totalmem() }),
    // One folder per runner, so reconcile reaps only its own workspace images.
    workspaceQuota: { dir: `${env.dataDir}/workspaces/${env.BERTH_RUNNER_ID}`, sizeBytes: env.BERTH_WORKSPACE_SIZE },
  };
  const hosts = env.BERTH_DOCKER_HOSTS;
  if (!hosts) {
    const health = createDockerHealth(new Docker());
    return { driver: new DockerSandboxDriver(options), health, prepare: () => answering(health, "the Docker engine") };
  }
  const { driver, clients } = createMultiHostDriver(hosts, options);
  const checks = [...clients].map(([name, docker]) => ({ name, check: createDockerHealth(docker) }));
  const health: DockerHealth = async () => {
    const results = await Promise.all(checks.map(async ({ name, check }) => ({ name, ...(await check()) })));
    const loads = new Map(driver.loads().map((l) => [l.name, l]));
    const first = results.find((r) => r.ok);
    return {
      ok: first !== undefined,
      version: first?.version,
      error: first ? undefined : results.map((r) => `${r.name}: ${r.error}`).join("; "),
      hosts: results.map((r) => ({ ...r, sessions: loads.get(r.name)?.sessions ?? 0, maxSessions: loads.get(r.name)?.maxSessions ?? 0 })),
    };
  };
  const prepare = async () => {
    for (const { name, check } of checks) await answering(check, `Docker host ${name}`);
    const source = clients.get(hosts[0]!.name)!;
    await ensureImageOnHosts(source, clients, env.BERTH_SANDBOX_IMAGE);
  };
  return { driver, health, prepare };
}

async function answering(check: DockerHealth, what: string): Promise<void> {
  const answer = await check();
  if (!answer.ok) throw new Error(`${what} does not answer (${answer.error}): start dockerd or fix DOCKER_HOST / BERTH_DOCKER_HOSTS`);
}
