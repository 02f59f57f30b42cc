import type { EventEmitter } from "node:events";
import type { SandboxDriverEvents } from "./sandbox-driver";

/** A background fault (pool refill, heartbeat, cleanup) as a `warning` event: never thrown. */
export function emitWarning(
  events: EventEmitter<SandboxDriverEvents>,
  sessionId: string | null,
  message: string,
  error?: unknown,
): void {
  events.emit("warning", { sessionId, message, ...(error === undefined ? {} : { error }) });
}
