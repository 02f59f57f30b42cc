import type Docker from "dockerode";
import { DockerSandboxDriver, type DockerSandboxDriverOptions } from "../docker";
import { type DockerHostSpec, dockerClientFor } from "./docker-hosts";
import { MultiHostSandboxDriver, type SandboxHost } from "./multi-host-driver";

/**
 * A MultiHostSandboxDriver over `hosts`, each a DockerSandboxDriver with the same options (image, limits, pool,
 * runner id): the posture, image and agent are the same on every host. The workspace quota needs loop devices on
 * the runner's own machine, so only unix-socket hosts get it.
 */
export function createMultiHostDriver(
  hosts: readonly DockerHostSpec[],
  options: Omit<DockerSandboxDriverOptions, "docker" | "socketPath">,
  clientFor: (host: DockerHostSpec) => Docker = dockerClientFor,
): { driver: MultiHostSandboxDriver; clients: Map<string, Docker> } {
  const clients = new Map<string, Docker>();
  const members: SandboxHost[] = hosts.map((spec) => {
    const docker = clientFor(spec);
    clients.set(spec.name, docker);
    const local = spec.url.startsWith("unix:");
    return {
      name: spec.name,
      maxSessions: spec.maxSessions,
      egress: spec.egress,
      driver: new DockerSandboxDriver({ ...options, docker, workspaceQuota: local ? options.workspaceQuota : undefined }),
      hasWorkspace: async (volumeName) => {
        try {
          await docker.getVolume(volumeName).inspect();
          return true;
        } catch {
          return false;
        }
      },
    };
  });
  return { driver: new MultiHostSandboxDriver(members), clients };
}

/**
 * Copies `image` from `source` to every engine that lacks it or holds another build under its name (`docker save
 * | docker load` through the engine API), so a new host needs nothing built by hand. Returns the hosts it loaded.
 */
export async function ensureImageOnHosts(source: Docker, clients: ReadonlyMap<string, Docker>, image: string): Promise<string[]> {
  const loaded: string[] = [];
  const wanted = (await source.getImage(image).inspect()).Id;
  for (const [name, docker] of clients) {
    if (docker === source) continue;
    // Same tag is not enough: an older build under `latest` would run an agent that speaks an older channel.
    const present = await docker.getImage(image).inspect().then((i) => i.Id, () => null);
    if (present === wanted) continue;
    const tar = await source.getImage(image).get();
    const reply = await docker.loadImage(tar, { quiet: true });
    await new Promise<void>((resolve, reject) => {
      docker.modem.followProgress(reply, (error) => (error ? reject(new Error(`loading ${image} into Docker host ${name}: ${error.message}`)) : resolve()));
    });
    await docker.getImage(image).inspect();
    loaded.push(name);
  }
  return loaded;
}
