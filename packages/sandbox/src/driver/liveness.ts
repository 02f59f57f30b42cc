import type { SessionState } from "./session-state";

export const MISSED_BEATS_LIMIT = 3;

export interface LivenessOptions<S extends SessionState = SessionState> {
  /** Stop after this long without calls, touch() or a running background process; 0 = never. */
  idleTimeoutMs: number;
  /** agent.ping interval; 0 disables. */
  heartbeatIntervalMs: number;
  /** A ping unanswered within this counts as missed; MISSED_BEATS_LIMIT in a row make the sandbox unresponsive. */
  heartbeatTimeoutMs: number;
  /** The idle timeout ran out with nothing in flight: stop the sandbox (cause idle_timeout). */
  onIdle: (state: S) => void;
  /** The agent missed MISSED_BEATS_LIMIT heartbeats: stop the sandbox (cause unresponsive). */
  onUnresponsive: (state: S) => void;
  warn: (sessionId: string, message: string, error: unknown) => void;
}

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * The idle timer and the heartbeat of every session, whatever runs the sandbox: both only need the session's
 * agent connection. What "stop" means is the driver's (onIdle, onUnresponsive).
 */
export class Liveness<S extends SessionState = SessionState> {
  constructor(private readonly opts: LivenessOptions<S>) {}

  /** Counts as activity: the idle timer starts again. */
  markActive(state: S): void {
    state.lastActivity = Date.now();
    // A terminated sandbox has nothing left to stop (a call's finally runs after its death too).
    if (this.opts.idleTimeoutMs <= 0 || state.status !== "ready") return;
    // Every call marks twice: restarting the one timer costs no new timer object or list entry.
    if (state.idleTimer) return void state.idleTimer.refresh();
    state.idleTimer = setTimeout(() => {
      state.idleTimer = null;
      if (state.inFlight > 0) return this.markActive(state);
      this.opts.onIdle(state);
    }, this.opts.idleTimeoutMs);
    state.idleTimer.unref();
  }

  startHeartbeat(state: S): void {
    if (this.opts.heartbeatIntervalMs <= 0) return;
    if (state.heartbeatTimer) clearInterval(state.heartbeatTimer);
    state.heartbeatTimer = setInterval(() => {
      const attached = state.attached;
      if (!attached || attached.conn.closed) return;
      const sentAt = Date.now();
      attached.conn.ping({ timeoutMs: this.opts.heartbeatTimeoutMs }).then(
        (pong) => {
          state.missedBeats = 0;
          // A dev server or a long job started with bash action=start is work, even with no calls coming in.
          if (pong.runningProcesses > 0) this.markActive(state);
        },
        (error: unknown) => {
          if (attached.conn.closed || state.attached !== attached) return;
          // The pong may sit behind megabytes of output on the one stdout pipe: data since the ping is a beat.
          if (attached.conn.lastDataAt >= sentAt) {
            state.missedBeats = 0;
            return;
          }
          state.missedBeats++;
          this.opts.warn(
            state.sessionId,
            `heartbeat missed (${state.missedBeats}/${MISSED_BEATS_LIMIT}): ${errorMessage(error)}`,
            error,
          );
          if (state.missedBeats < MISSED_BEATS_LIMIT) return;
          this.opts.onUnresponsive(state);
        },
      );
    }, this.opts.heartbeatIntervalMs);
    state.heartbeatTimer.unref();
  }

  clearTimers(state: S): void {
    if (state.idleTimer) clearTimeout(state.idleTimer);
    if (state.heartbeatTimer) clearInterval(state.heartbeatTimer);
    state.idleTimer = null;
    state.heartbeatTimer = null;
  }
}
