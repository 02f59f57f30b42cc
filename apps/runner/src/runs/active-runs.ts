/** Why a run was cancelled, for the run's record and the caller's message. */
export interface CancelReason {
  by: string;
  via: "http" | "socket";
}

interface Entry {
  sessionId: string;
  controller: AbortController;
}

/**
 * The runs whose tool call is still in flight in this runner, each with the AbortController its call
 * runs under: an explicit cancel (the IDE's Stop: `POST /api/runs/:id/cancel`, `run:cancel`) aborts it
 * exactly as a caller's own abort does, so the agent kills the process group and the run ends `aborted`
 * with its receipt sealed as usual.
 */
export class ActiveRuns {
  readonly #runs = new Map<string, Entry>();

  /** Registers a run for the length of its call; its signal aborts on `parent` (the caller) or on cancel. */
  track(runId: string, sessionId: string, parent?: AbortSignal): { signal: AbortSignal; done: () => void } {
    const controller = new AbortController();
    const onParentAbort = () => controller.abort(parent?.reason);
    if (parent?.aborted) onParentAbort();
    else parent?.addEventListener("abort", onParentAbort, { once: true });
    this.#runs.set(runId, { sessionId, controller });
    return {
      signal: controller.signal,
      done: () => {
        parent?.removeEventListener("abort", onParentAbort);
        if (this.#runs.get(runId)?.controller === controller) this.#runs.delete(runId);
      },
    };
  }

  /** Aborts the run's call; false when no call of that run is in flight here. */
  cancel(runId: string, reason: CancelReason): boolean {
    const entry = this.#runs.get(runId);
    if (!entry || entry.controller.signal.aborted) return false;
    entry.controller.abort(new Error(`run ${runId} cancelled by ${reason.by} (${reason.via})`));
    return true;
  }

  has(runId: string): boolean {
    return this.#runs.has(runId);
  }
}
