import type {
  AgentHelloResult,
  SandboxInfo,
  SandboxStatus,
  SandboxTermination,
  TerminationCause,
} from "@berth/protocol";
import type { AgentConnection } from "../agent-connection";
import { SandboxError, sandboxNotRunning } from "../errors";

/** A started sandbox whose agent answered hello, as any driver holds it (Docker's adds its container). */
export interface AttachedAgent {
  /** The engine's id for the sandbox (SandboxInfo.containerId). */
  readonly containerId: string;
  readonly conn: AgentConnection;
  readonly hello: AgentHelloResult;
  readonly readyAt: Date;
}

/** What a driver knows about one session's sandbox between calls. */
export interface SessionState<A extends AttachedAgent = AttachedAgent> {
  sessionId: string;
  volumeName: string;
  egress: boolean;
  status: SandboxStatus;
  attached: A | null;
  createdAt: Date;
  lastActivity: number | null;
  oomKills: number;
  /** The container and time of the latest OOM event: a death is an OOM only when one came with it. */
  oomSeenOn: string | null;
  lastOomAt: number | null;
  termination: SandboxTermination | null;
  starting: Promise<unknown> | null;
  /** Set when the runner itself stops the sandbox, so the end of its stream is not read as a crash. */
  stopping: TerminationCause | null;
  /** Removal of a dead sandbox in flight; a restart waits for it (same name). */
  removal: Promise<void> | null;
  /** The volume name was generated here and does not exist yet: create it without asking. */
  freshVolume: boolean;
  /** A claimed warm sandbox being renamed after its session. */
  renaming: Promise<void> | null;
  inFlight: number;
  idleTimer: NodeJS.Timeout | null;
  heartbeatTimer: NodeJS.Timeout | null;
  missedBeats: number;
}

export function newSessionState<A extends AttachedAgent>(
  sessionId: string,
  volumeName: string,
  egress: boolean,
): SessionState<A> {
  return {
    sessionId,
    volumeName,
    egress,
    status: "starting",
    attached: null,
    createdAt: new Date(),
    lastActivity: null,
    oomKills: 0,
    oomSeenOn: null,
    lastOomAt: null,
    termination: null,
    starting: null,
    stopping: null,
    removal: null,
    renaming: null,
    freshVolume: false,
    inFlight: 0,
    idleTimer: null,
    heartbeatTimer: null,
    missedBeats: 0,
  };
}

/** The session's state, or the not_found error a caller should see. */
export function requireSessionState<S extends SessionState>(sessions: ReadonlyMap<string, S>, sessionId: string): S {
  const state = sessions.get(sessionId);
  if (!state) {
    throw new SandboxError({
      sessionId,
      reason: "not_found",
      message: `No sandbox for session ${sessionId}; acquire one first`,
    });
  }
  return state;
}

/** The session's state with a live agent (waiting for a start in flight), or the error a caller should see. */
export async function runningSessionState<S extends SessionState>(
  sessions: ReadonlyMap<string, S>,
  sessionId: string,
): Promise<S & { attached: NonNullable<S["attached"]> }> {
  const state = requireSessionState(sessions, sessionId);
  if (state.status === "starting" && state.starting) await state.starting.catch(() => undefined);
  if (state.status === "ready" && state.attached && !state.attached.conn.closed)
    return state as S & { attached: NonNullable<S["attached"]> };
  const t = state.termination;
  throw sandboxNotRunning(sessionId, t?.cause ?? "exited", t?.exitCode ?? null);
}

export function sandboxInfoOf(state: SessionState, image: { image: string; imageId: string | null }): SandboxInfo {
  const attached = state.attached;
  return {
    sessionId: state.sessionId,
    status: state.status,
    containerId: attached?.containerId ?? null,
    volumeName: state.volumeName,
    image: image.image,
    imageId: image.imageId,
    egress: state.egress,
    agentVersion: attached?.hello.agentVersion ?? null,
    createdAt: state.createdAt.toISOString(),
    readyAt: attached?.readyAt.toISOString() ?? null,
    lastActivityAt: state.lastActivity === null ? null : new Date(state.lastActivity).toISOString(),
    oomKills: state.oomKills,
    termination: state.termination,
  };
}
