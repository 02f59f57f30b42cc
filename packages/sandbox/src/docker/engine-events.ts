import type Docker from "dockerode";
import { errorMessage } from "./docker-errors";
import { runnerFilter } from "./sandbox-labels";

/** The container an engine event line reports an OOM kill in, or null for any other line. */
export function oomContainerOf(line: string): string | null {
  let event: { status?: string; Action?: string; id?: string; Actor?: { ID?: string } };
  try {
    event = JSON.parse(line) as typeof event;
  } catch {
    return null;
  }
  const id = event.Actor?.ID ?? event.id;
  if ((event.Action ?? event.status) !== "oom" || !id) return null;
  return id;
}

export interface EngineEventsOptions {
  docker: Docker;
  runnerId: string;
  /** A process in the container was OOM-killed (the container may live on). */
  onOom: (containerId: string) => void;
  warn: (message: string, error: unknown) => void;
}

/**
 * OOM kills of a process inside a surviving container show only as engine events: watches the engine's event
 * stream for our containers' `oom` events, and watches again when the engine restarts or the socket drops.
 */
export class EngineEvents {
  private stream: NodeJS.ReadableStream | null = null;
  private closed = false;

  constructor(private readonly opts: EngineEventsOptions) {}

  async watch(): Promise<void> {
    const filters = { type: ["container" as const], event: ["oom"], ...runnerFilter(this.opts.runnerId) };
    const stream = await this.opts.docker.getEvents({ filters });
    this.stream = stream;
    let buffer = "";
    stream.on("data", (chunk: Buffer) => {
      buffer += chunk.toString("utf8");
      let nl = buffer.indexOf("\n");
      while (nl !== -1) {
        const line = buffer.slice(0, nl).trim();
        buffer = buffer.slice(nl + 1);
        const id = line ? oomContainerOf(line) : null;
        if (id) this.opts.onOom(id);
        nl = buffer.indexOf("\n");
      }
    });
    stream.on("error", () => undefined);
    stream.on("end", () => {
      if (this.closed || this.stream !== stream) return;
      // The engine restarted or the socket dropped: watch again after a pause.
      setTimeout(
        () =>
          void this.watch().catch((error: unknown) =>
            this.opts.warn(`engine events lost: ${errorMessage(error)}`, error),
          ),
        1_000,
      ).unref();
    });
  }

  close(): void {
    this.closed = true;
    const stream = this.stream as (NodeJS.ReadableStream & { destroy?: () => void }) | null;
    this.stream = null;
    stream?.destroy?.();
  }
}
