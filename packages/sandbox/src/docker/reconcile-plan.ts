import type Docker from "dockerode";
import type { LiveSession } from "../driver";
import { POOL_SESSION, SandboxLabel, sessionFromContainerName } from "./sandbox-labels";

/** What reconcile reads of a container: `docker ps -a` for our runner's label. */
export type ContainerDescription = Pick<Docker.ContainerInfo, "Id" | "Names" | "Labels" | "Created" | "State">;

export interface ReconcileInput {
  /** Every container carrying this runner's label, running or not. */
  containers: readonly ContainerDescription[];
  /** Sessions the runner's database still holds. */
  live: Iterable<LiveSession | string>;
  /** Containers this driver is attached to already (its pool and its sessions): never touched. */
  attachedContainers: ReadonlySet<string>;
  /** Sessions this driver has a sandbox attached for: another container of theirs is a leftover. */
  attachedSessions: ReadonlySet<string>;
}

export interface ReconcilePlan {
  /** The newest container of each live session, with the workspace volume it mounts. */
  adopt: { sessionId: string; container: ContainerDescription; volumeName: string }[];
  /** Containers of sessions that are gone, of an old warm pool, or older duplicates of a live session's. */
  reap: ContainerDescription[];
  /** Containers of sessions another runner holds: left as they are. */
  leave: ContainerDescription[];
  /** Each live session's workspace volume; undefined where neither the caller nor a container says it. */
  liveVolumes: Map<string, string | undefined>;
}

/**
 * Decides, from a list of container descriptions alone, which containers a starting runner adopts and which it
 * reaps. A warm container claimed just before a crash may still carry its pool label: its name or its volume
 * names the session.
 */
export function planReconcile(input: ReconcileInput): ReconcilePlan {
  const liveVolumes = new Map<string, string | undefined>();
  const sessionOfVolume = new Map<string, string>();
  const elsewhere = new Set<string>();
  for (const entry of input.live) {
    if (typeof entry === "string") liveVolumes.set(entry, undefined);
    else liveVolumes.set(entry.sessionId, entry.volumeName);
    if (typeof entry !== "string" && entry.elsewhere) elsewhere.add(entry.sessionId);
    if (typeof entry !== "string" && entry.volumeName) sessionOfVolume.set(entry.volumeName, entry.sessionId);
  }
  const bySession = new Map<string, ContainerDescription[]>();
  const reap: ContainerDescription[] = [];
  const leave: ContainerDescription[] = [];
  for (const info of input.containers) {
    if (input.attachedContainers.has(info.Id)) continue;
    const label = info.Labels[SandboxLabel.Session];
    const sessionId =
      label && label !== POOL_SESSION
        ? label
        : (sessionFromContainerName(info.Names[0] ?? "") ??
          sessionOfVolume.get(info.Labels[SandboxLabel.Volume] ?? "") ??
          null);
    if (sessionId !== null && elsewhere.has(sessionId)) {
      leave.push(info);
      continue;
    }
    if (sessionId === null || !liveVolumes.has(sessionId) || input.attachedSessions.has(sessionId)) {
      reap.push(info);
      continue;
    }
    const list = bySession.get(sessionId) ?? [];
    list.push(info);
    bySession.set(sessionId, list);
  }

  const adopt: ReconcilePlan["adopt"] = [];
  for (const [sessionId, list] of bySession) {
    list.sort((a, b) => b.Created - a.Created);
    const [newest, ...older] = list;
    reap.push(...older);
    if (!newest) continue;
    const volumeName = newest.Labels[SandboxLabel.Volume] ?? liveVolumes.get(sessionId);
    if (!volumeName) {
      reap.push(newest);
      continue;
    }
    if (!liveVolumes.get(sessionId)) liveVolumes.set(sessionId, volumeName);
    adopt.push({ sessionId, container: newest, volumeName });
  }
  return { adopt, reap, leave, liveVolumes };
}

/**
 * The volumes to keep: every live session's workspace, the driver's own sessions' and warm containers'. Volumes
 * are pruned only when `allKnown`, so no live workspace is lost to a session given without its volume name.
 */
export function volumesToKeep(
  liveVolumes: ReadonlyMap<string, string | undefined>,
  volumeOfSession: (sessionId: string) => string | undefined,
  alsoKeep: Iterable<string>,
): { keep: Set<string>; allKnown: boolean } {
  const keep = new Set<string>();
  let allKnown = true;
  for (const [sessionId, volumeName] of liveVolumes) {
    const name = volumeName ?? volumeOfSession(sessionId);
    if (name) keep.add(name);
    else allKnown = false;
  }
  for (const name of alsoKeep) keep.add(name);
  return { keep, allKnown };
}
