/** Labels on every container and volume we create; `docker ps --filter label=berth.managed=true` finds them. */
export const SandboxLabel = {
  Managed: "berth.managed",
  Runner: "berth.runner",
  /** The session id, or `pool` for a warm container (labels are immutable: see containerNameFor). */
  Session: "berth.session",
  Volume: "berth.volume",
  Egress: "berth.egress",
} as const;

export const POOL_SESSION = "pool";

export function sandboxLabels(
  runnerId: string,
  session: string,
  volumeName: string,
  egress: boolean,
): Record<string, string> {
  return {
    [SandboxLabel.Managed]: "true",
    [SandboxLabel.Runner]: runnerId,
    [SandboxLabel.Session]: session,
    [SandboxLabel.Volume]: volumeName,
    [SandboxLabel.Egress]: egress ? "1" : "0",
  };
}

export function volumeLabels(runnerId: string): Record<string, string> {
  return { [SandboxLabel.Managed]: "true", [SandboxLabel.Runner]: runnerId };
}

/** Docker filter for everything one runner owns. */
export function runnerFilter(runnerId: string): { label: string[] } {
  return { label: [`${SandboxLabel.Managed}=true`, `${SandboxLabel.Runner}=${runnerId}`] };
}

const SAFE_ID = /^[a-zA-Z0-9][a-zA-Z0-9_.-]{0,150}$/;

/**
 * Container names carry the session because a warm container's labels say `pool` forever: acquiring it
 * renames it, and a restarted runner reads the session back from the name. Ids Docker would refuse in a
 * name are hex-encoded.
 */
export function containerNameFor(sessionId: string): string {
  return SAFE_ID.test(sessionId) ? `berth-s-${sessionId}` : `berth-x-${Buffer.from(sessionId).toString("hex")}`;
}

/** The session a container belongs to, from its name (with or without Docker's leading "/"); null for pool. */
export function sessionFromContainerName(name: string): string | null {
  const bare = name.startsWith("/") ? name.slice(1) : name;
  if (bare.startsWith("berth-s-")) return bare.slice("berth-s-".length);
  if (bare.startsWith("berth-x-")) return Buffer.from(bare.slice("berth-x-".length), "hex").toString();
  return null;
}
