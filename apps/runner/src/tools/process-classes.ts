import type { ToolClassification } from "@berth/tools";
import type { SandboxDriver } from "@berth/sandbox";

/**
 * The class each running process's `bash start` was admitted under, per session, so `bash write` to it
 * is admitted the same way (input to a dev server the session may run is not a new, unknown command).
 */
export class ProcessClasses {
  private readonly bySession = new Map<string, Map<string, ToolClassification>>();

  /** `maxPerSession`: the oldest processes are forgotten first (a write to one is then admitted as unknown). */
  constructor(
    driver?: Pick<SandboxDriver, "on">,
    private readonly maxPerSession = 256,
  ) {
    driver?.on("terminated", (event) => this.bySession.delete(event.sessionId));
  }

  remember(sessionId: string, processId: string, classification: ToolClassification): void {
    let processes = this.bySession.get(sessionId);
    if (!processes) this.bySession.set(sessionId, (processes = new Map()));
    const { actionClass, recognised, alwaysAsk, reasons } = classification;
    processes.set(processId, {
      actionClass,
      ...(recognised === undefined ? {} : { recognised }),
      ...(alwaysAsk === undefined ? {} : { alwaysAsk }),
      ...(reasons ? { reasons: [...reasons] } : {}),
    });
    for (const oldest of processes.keys()) {
      if (processes.size <= this.maxPerSession) break;
      processes.delete(oldest);
    }
  }

  classOf(sessionId: string, processId: string): ToolClassification | undefined {
    return this.bySession.get(sessionId)?.get(processId);
  }

  /** The session's started processes as admission reads them (what `bash write` to one inherits). */
  of(sessionId: string): (processId: string) => ToolClassification | undefined {
    const processes = this.bySession.get(sessionId);
    return (processId) => processes?.get(processId);
  }
}
