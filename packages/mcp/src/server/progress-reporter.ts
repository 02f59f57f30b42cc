import type { ProgressToken } from "@modelcontextprotocol/sdk/types.js";
import type { ToolProgress } from "@berth/protocol";

/** docs/api.md: at most 4 progress notifications a second per call. */
export const PROGRESS_MIN_INTERVAL_MS = 250;

export interface ProgressNotification {
  method: "notifications/progress";
  params: { progressToken: ProgressToken; progress: number; total?: number; message?: string };
}

/**
 * Sends one call's `notifications/progress` with the caller's token: throttled (the latest update in an
 * interval wins and goes out at its end, so the last state is never lost to the throttle) and with a
 * progress value that always increases, as the MCP spec requires, whatever mix of sources reports it
 * (the tool's byte counts, a heartbeat, an upstream server's own figures).
 */
export class ProgressReporter {
  #last = 0;
  #lastSentAt = -Infinity;
  #pending: ToolProgress | undefined;
  #timer: NodeJS.Timeout | undefined;
  #closed = false;

  constructor(
    private readonly token: ProgressToken,
    private readonly send: (notification: ProgressNotification) => Promise<void>,
    private readonly minIntervalMs = PROGRESS_MIN_INTERVAL_MS,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** A real update from the tool (or upstream). */
  report(update: ToolProgress): void {
    if (this.#closed) return;
    this.#pending = update;
    const wait = this.#lastSentAt + this.minIntervalMs - this.now();
    if (wait <= 0) return this.#flush();
    this.#timer ??= setTimeout(() => this.#flush(), wait);
  }

  /**
   * A sign of life with no new figure (waiting for approval, a long silent command): one step up. With
   * `quietMs`, only when nothing was sent for that long.
   */
  beat(message: string, quietMs = 0): void {
    if (quietMs > 0 && this.now() - this.#lastSentAt < quietMs) return;
    this.report({ progress: this.#last + 1, message });
  }

  /** The call ended: nothing more is sent (the result follows). */
  close(): void {
    this.#closed = true;
    clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#pending = undefined;
  }

  #flush(): void {
    this.#timer = undefined;
    const update = this.#pending;
    this.#pending = undefined;
    if (!update || this.#closed) return;
    this.#last = update.progress > this.#last ? update.progress : this.#last + 1;
    this.#lastSentAt = this.now();
    const params: ProgressNotification["params"] = { progressToken: this.token, progress: this.#last };
    if (update.total !== undefined && update.total >= this.#last) params.total = update.total;
    if (update.message !== undefined) params.message = update.message;
    this.send({ method: "notifications/progress", params }).catch(() => {
      // The stream may already be gone; the result (or the abort) settles the call.
    });
  }
}
