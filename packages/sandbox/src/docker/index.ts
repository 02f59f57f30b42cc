export { DockerSandboxDriver, type DockerSandboxDriverOptions } from "./docker-sandbox-driver";
export { DEFAULT_LIMITS, hardenedHostConfig, postureOf, type SandboxLimits } from "./hardened-host-config";
export { SandboxLabel, containerNameFor, sessionFromContainerName } from "./sandbox-labels";
