import { z } from "zod";

/**
 * Session sandboxes as the runner records them (packages/sandbox drives them). The container security
 * posture itself is `SandboxPostureSchema` in receipt.ts, since every receipt carries it.
 */

/**
 * Where a session's sandbox is in its life:
 *   starting    container being created / started / handshaken
 *   ready       the agent answered hello and heartbeats; calls go through
 *   terminated  the container is gone or stopped; the workspace volume is kept and a restart brings it back
 *   deleted     container and workspace volume removed with the session
 */
export const SandboxStatusSchema = z.enum(["starting", "ready", "terminated", "deleted"]);
export type SandboxStatus = z.infer<typeof SandboxStatusSchema>;

/**
 * Why a sandbox stopped, machine-readable. Each value is honest about who ended it:
 *   exited            the agent or container exited on its own, or someone killed it (exitCode says how)
 *   oom               the kernel killed it for exceeding the memory limit (inspect: State.OOMKilled)
 *   idle_timeout      no call and no running background process for the configured idle time; the runner
 *                     stopped it, workspace kept
 *   unresponsive      heartbeats went unanswered; the runner killed it
 *   handshake_failed  the agent never answered hello, or reported another protocol version
 *   released          the runner released it on purpose (session suspended, runner shutdown)
 *   deleted           the session was deleted; workspace removed too
 *   reaped            found on runner start without a live session and removed
 */
export const TerminationCauseSchema = z.enum([
  "exited",
  "oom",
  "idle_timeout",
  "unresponsive",
  "handshake_failed",
  "released",
  "deleted",
  "reaped",
]);
export type TerminationCause = z.infer<typeof TerminationCauseSchema>;

export const SandboxTerminationSchema = z.object({
  sessionId: z.string().min(1),
  cause: TerminationCauseSchema,
  /** The container's exit code when it exited (137 after SIGKILL, OOM included); null when not known. */
  exitCode: z.number().int().nullable(),
  message: z.string(),
  at: z.iso.datetime(),
});
export type SandboxTermination = z.infer<typeof SandboxTerminationSchema>;

export function isSandboxTermination(value: unknown): value is SandboxTermination {
  return SandboxTerminationSchema.safeParse(value).success;
}

/** A process inside the sandbox was killed by the OOM killer while the agent itself survived. */
export const SandboxOomEventSchema = z.object({
  sessionId: z.string().min(1),
  at: z.iso.datetime(),
});
export type SandboxOomEvent = z.infer<typeof SandboxOomEventSchema>;

/** What a driver reports about one session's sandbox (`SandboxDriver.list` / `get`). */
export const SandboxInfoSchema = z.object({
  sessionId: z.string().min(1),
  status: SandboxStatusSchema,
  /** Null while no container exists (terminated, deleted). */
  containerId: z.string().nullable(),
  /** The session's workspace: a named volume mounted at /workspace. Persist it to restart the session. */
  volumeName: z.string(),
  image: z.string(),
  /** The image's content id (`sha256:…`), as receipts record it; null until known. */
  imageId: z.string().nullable(),
  egress: z.boolean(),
  agentVersion: z.string().nullable(),
  createdAt: z.iso.datetime(),
  readyAt: z.iso.datetime().nullable(),
  lastActivityAt: z.iso.datetime().nullable(),
  /** Processes the kernel OOM-killed inside this sandbox (the agent may have survived them). */
  oomKills: z.number().int().nonnegative(),
  termination: SandboxTerminationSchema.nullable(),
});
export type SandboxInfo = z.infer<typeof SandboxInfoSchema>;

export function isSandboxInfo(value: unknown): value is SandboxInfo {
  return SandboxInfoSchema.safeParse(value).success;
}
