import { z } from "zod";
import { lenientArray, toolFailure } from "@berth/protocol";
import { defineTool, fixedClass, jsonResult } from "../registry/define-tool";
import type { MonitoredRun } from "../registry/tool-spec";

const RunId = z.string().min(1, "must not be empty").max(100);

export const MonitorArgsSchema = z.object({
  mode: z.enum(["list", "status", "peek", "tools", "receipt", "wait", "collect"]).default("list"),
  runId: RunId.optional(),
  runIds: lenientArray(z.array(RunId).max(64, "must have at most 64 run ids")).optional(),
  timeoutMs: z.number().int().min(0, "must be ≥ 0").max(600_000, "must be at most 600000").default(30_000),
  limit: z.number().int().min(1).max(200).default(20),
});

const PEEK_BYTES = 4096;

const MonitoredRunSchema = z.object({
  id: z.string(),
  sessionId: z.string(),
  tool: z.string(),
  status: z.string(),
  outcome: z.string().nullable(),
  exitCode: z.number().int().nullable(),
  startedAt: z.string(),
  endedAt: z.string().nullable(),
  durationMs: z.number().nullable(),
  receiptId: z.string().nullable(),
});

/** One shape per mode: list/collect, tools, peek, receipt, status/wait. */
export const MonitorDetailsSchema = z.union([
  // collect adds whether every run ended, and which still run when its timeout passed.
  z.object({ runs: z.array(MonitoredRunSchema), ended: z.boolean().optional(), running: z.array(z.string()).optional() }),
  z.object({ tools: z.array(z.object({ name: z.string(), description: z.string() })) }),
  z.object({ run: MonitoredRunSchema, stdout: z.string(), stderr: z.string() }),
  z.object({ run: MonitoredRunSchema, receipt: z.record(z.string(), z.unknown()) }),
  z.object({ run: MonitoredRunSchema, ended: z.boolean() }),
]);

/** Reads this session's runs: another session's run is refused by name, never reported unknown. */
export const monitorTool = defineTool({
  name: "monitor",
  description:
    "Watch this session's runs: mode list (recent runs), status {runId}, peek {runId} (log tails), tools (what is callable), receipt {runId}, wait {runId, timeoutMs} (until it ends), collect {runIds, timeoutMs} (the barrier: waits until every run ended or the timeout passes, then their status; a background dispatch's run id goes here).",
  argsSchema: MonitorArgsSchema,
  resultSchema: MonitorDetailsSchema,
  classify: fixedClass("read"),
  async run(args, ctx) {
    const host = ctx.monitor;
    if (!host) return toolFailure("unavailable", "monitor: no run store in this context");
    switch (args.mode) {
      case "list":
        return jsonResult({ runs: await host.listRuns(args.limit) });
      case "tools":
        return jsonResult({ tools: host.tools() });
      case "collect": {
        const ids = args.runIds ?? (args.runId ? [args.runId] : []);
        if (!ids.length) return toolFailure("invalid_arguments", "monitor: runIds is required for mode=collect");
        // A refused id fails at once, before anything waits.
        const refused = (await Promise.all(ids.map((id) => host.getRun(id)))).find((r): r is { refused: string } => "refused" in r);
        if (refused) return toolFailure("refused", refused.refused);
        const deadline = Date.now() + args.timeoutMs;
        const runs = (await Promise.all(ids.map((id) => host.waitForEnd(id, Math.max(0, deadline - Date.now()))))).filter((r): r is MonitoredRun => !("refused" in r));
        const running = runs.filter((r) => r.status === "running").map((r) => r.id);
        return jsonResult({ runs, ended: running.length === 0, ...(running.length ? { running } : {}) });
      }
      default: {
        const runId = args.runId;
        if (!runId) return toolFailure("invalid_arguments", `monitor: runId is required for mode=${args.mode}`);
        const run = args.mode === "wait" ? await host.waitForEnd(runId, args.timeoutMs) : await host.getRun(runId);
        if ("refused" in run) return toolFailure("refused", run.refused);
        if (args.mode === "peek") return jsonResult({ run, ...(await host.tail(runId, PEEK_BYTES)) });
        if (args.mode === "receipt") {
          const receipt = await host.receipt(runId);
          return receipt ? jsonResult({ run, receipt }) : toolFailure("not_found", `monitor: run ${runId} has no receipt yet (status ${run.status})`);
        }
        return jsonResult({ run, ended: run.status !== "running" });
      }
    }
  },
});
