import { AppError, type TerminationCause } from "@berth/protocol";

/**
 * Why a sandbox call failed, machine-readable:
 *   not_found    no sandbox is known for the session (acquire it first)
 *   not_running  the container is gone; `terminationCause` says why
 *   timeout      the agent did not answer within the call's timeout
 *   rpc          the agent answered with a JSON-RPC error (`rpcCode`)
 *   protocol     the agent sent something that is not valid protocol (bad JSON, wrong shape, version)
 *   conflict     the session already has a running sandbox (create twice)
 *   docker       the Docker engine refused an operation
 */
export type SandboxErrorReason = "not_found" | "not_running" | "timeout" | "rpc" | "protocol" | "conflict" | "docker";

const marker = Symbol.for("berth.SandboxError");

export class SandboxError extends AppError {
  readonly [marker] = true;
  readonly sessionId: string;
  readonly reason: SandboxErrorReason;
  readonly terminationCause: TerminationCause | null;
  readonly rpcCode: number | null;

  constructor(opts: {
    sessionId: string;
    reason: SandboxErrorReason;
    message: string;
    terminationCause?: TerminationCause | null;
    rpcCode?: number | null;
    cause?: unknown;
  }) {
    const unavailable = opts.reason === "not_running" || opts.reason === "timeout" || opts.reason === "docker";
    super({
      code:
        opts.reason === "not_found" || opts.reason === "conflict"
          ? opts.reason
          : unavailable
            ? "sandbox_unavailable"
            : "internal",
      message: opts.message,
      // The user sees the same sentence: it names the session and the cause, nothing internal.
      userMessage: opts.reason === "not_running" || opts.reason === "not_found" ? opts.message : undefined,
      cause: opts.cause,
    });
    this.name = "SandboxError";
    this.sessionId = opts.sessionId;
    this.reason = opts.reason;
    this.terminationCause = opts.terminationCause ?? null;
    this.rpcCode = opts.rpcCode ?? null;
  }

  static isSandboxError(error: unknown): error is SandboxError {
    return typeof error === "object" && error !== null && marker in error;
  }
}

/** The one wording for "this sandbox is dead", so callers and logs can rely on it. */
export function sandboxNotRunning(sessionId: string, cause: TerminationCause, exitCode?: number | null): SandboxError {
  const exit = exitCode === undefined || exitCode === null ? "" : `, exit code ${exitCode}`;
  return new SandboxError({
    sessionId,
    reason: "not_running",
    terminationCause: cause,
    message: `Sandbox for session ${sessionId} is not running (cause: ${cause}${exit})`,
  });
}
