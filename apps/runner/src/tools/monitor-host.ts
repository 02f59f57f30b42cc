import type { Repositories, RunRecord } from "@berth/db";
import type { MonitorHost, MonitoredRun } from "@berth/tools";
import type { RunLogStore } from "../cluster/run-log-store";
import type { RunnerEvents } from "../events/runner-events";
import type { ReceiptService } from "../receipts/receipt-service";
import { logSize, readLog } from "../runs/run-logs";

/** What `monitor` shows of a run: the API's run view without its args, details and byte counts. */
function monitored(run: RunRecord): MonitoredRun {
  const { id, sessionId, tool, status, outcome, exitCode, startedAt, endedAt, durationMs, receiptId } = run;
  return { id, sessionId, tool, status, outcome, exitCode, startedAt, endedAt, durationMs, receiptId };
}

/** `monitor` for one session: its own runs only; another session's run is refused by name. */
export function createMonitorHost(deps: {
  repos: Repositories;
  dataDir: string;
  receipts: ReceiptService;
  events: RunnerEvents;
  sessionId: string;
  tools: () => { name: string; description: string }[];
  /** Makes this runner's files of a run hold its log (another runner's run, or one taken over at failover). */
  logs?: Pick<RunLogStore, "ready">;
}): MonitorHost {
  const getRun = async (runId: string): Promise<MonitoredRun | { refused: string }> => {
    const run = await deps.repos.runs.get(runId);
    if (!run) return { refused: `monitor: run not found: ${runId}` };
    if (run.sessionId !== deps.sessionId) return { refused: `monitor: run ${runId} belongs to another session` };
    return monitored(run);
  };
  return {
    async listRuns(limit) {
      const runs = await deps.repos.runs.list({ sessionId: deps.sessionId, limit });
      return runs.map(monitored);
    },
    getRun,
    async tail(runId, bytes) {
      const run = deps.logs ? await deps.repos.runs.get(runId) : null;
      if (run) await deps.logs?.ready(run);
      const tail = (stream: "stdout" | "stderr") => {
        const size = logSize(deps.dataDir, runId, stream);
        return readLog(deps.dataDir, runId, stream, Math.max(0, size - bytes), bytes).content.toString("utf8");
      };
      return { stdout: tail("stdout"), stderr: tail("stderr") };
    },
    async receipt(runId) {
      return deps.repos.receipts.getByRun(runId);
    },
    async waitForEnd(runId, timeoutMs) {
      const first = await getRun(runId);
      if ("refused" in first || first.status !== "running") return first;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(done, timeoutMs);
        function done() {
          clearTimeout(timer);
          deps.events.off("run:status", onStatus);
          resolve();
        }
        function onStatus(event: { runId: string; status: string }) {
          if (event.runId === runId && event.status !== "running") done();
        }
        deps.events.on("run:status", onStatus);
      });
      return getRun(runId);
    },
    tools: deps.tools,
  };
}
