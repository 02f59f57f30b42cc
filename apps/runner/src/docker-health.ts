import Docker from "dockerode";
import type { DockerHealth } from "./http/build-server";

/** Asks the engine (DOCKER_HOST or the local socket) for its version; never throws. */
export function createDockerHealth(docker = new Docker()): DockerHealth {
  return async () => {
    try {
      const version = await docker.version();
      return { ok: true, version: version.Version };
    } catch (error) {
      return { ok: false, error: (error as Error).message };
    }
  };
}
