import { z } from "zod";
import { DispatchTopologySchema, lenientArray, lenientObject, toolFailure } from "@berth/protocol";
import type { ToolResult } from "@berth/protocol";
import { defineTool, fixedClass } from "../registry/define-tool";

const TaskSchema = z.object({
  tool: z.string().min(1, "must not be empty").max(200),
  args: lenientObject(z.record(z.string(), z.unknown())).default({}),
  id: z.string().min(1).max(100).optional(),
  after: z.union([z.string(), z.array(z.string())]).optional(),
});

export const DispatchArgsSchema = z.object({
  tasks: lenientArray(z.array(TaskSchema).min(1, "must have at least one task").max(32, "must have at most 32 tasks")),
  topology: DispatchTopologySchema.default("parallel"),
});
export type DispatchArgs = z.output<typeof DispatchArgsSchema>;

interface TaskOutcome {
  id: string;
  tool: string;
  ok: boolean;
  skipped?: string;
  output: string;
  runId?: string;
  receiptId?: string;
}

const PREVIEW = 2000;

/** What a dispatch returns: each task's outcome (its output cut to a preview) and the tally. */
export const DispatchDetailsSchema = z.object({
  topology: DispatchTopologySchema,
  tasks: z.array(
    z.object({
      id: z.string(),
      tool: z.string(),
      ok: z.boolean(),
      skipped: z.string().optional(),
      output: z.string(),
      runId: z.string().optional(),
      receiptId: z.string().optional(),
    }),
  ),
  succeeded: z.number().int(),
  failed: z.number().int(),
});

/**
 * Runs tool tasks as one plan. Admission settled the plan before this runs (a plan-scale dispatch parks
 * once for the rendered plan text), so tasks run without asking again. parallel: all at once, honouring
 * `after`; sequential: in order, each whatever the last did; pipeline: in order, stopping at a failure.
 */
export const dispatchTool = defineTool({
  name: "dispatch",
  description:
    "Run several tool tasks as one plan: topology parallel (default; `after` names tasks to wait for), sequential (in order) or pipeline (in order, stop at the first failure). A plan of more than one task is approved once as a whole.",
  argsSchema: DispatchArgsSchema,
  resultSchema: DispatchDetailsSchema,
  reachesOthers: true,
  // Admission judges each task under its own name, then the plan as a whole (admit.ts evaluatePlan).
  plansCalls: true,
  classify: fixedClass("dispatch"),
  async run(args, ctx) {
    const host = ctx.host;
    if (!host) return toolFailure("unavailable", "dispatch: no tool host in this context");
    const ids = args.tasks.map((task, i) => task.id ?? `task${i + 1}`);
    const started = Date.now();
    let finished = 0;
    const runTask = async (i: number): Promise<TaskOutcome> => {
      const task = args.tasks[i]!;
      // Cancelled (the caller went away, or Stop): tasks not yet started never start.
      if (ctx.signal?.aborted) return { id: ids[i]!, tool: task.tool, ok: false, skipped: "cancelled", output: "" };
      const result: ToolResult = await host.callAdmitted(task.tool, task.args);
      finished += 1;
      const elapsed = ((Date.now() - started) / 1000).toFixed(1);
      ctx.onProgress?.({ progress: finished, total: args.tasks.length, message: `${elapsed}s: ${finished}/${args.tasks.length} tasks done; ${ids[i]} ${task.tool} ${result.ok ? "ok" : "failed"}` });
      return {
        id: ids[i]!,
        tool: task.tool,
        ok: result.ok,
        output: result.output.length > PREVIEW ? `${result.output.slice(0, PREVIEW)}…` : result.output,
        ...(result.runId ? { runId: result.runId } : {}),
        ...(result.receiptId ? { receiptId: result.receiptId } : {}),
      };
    };

    const outcomes: TaskOutcome[] = [];
    if (args.topology === "parallel") {
      const done = new Map<string, Promise<TaskOutcome>>();
      const start = (i: number): Promise<TaskOutcome> => {
        const existing = done.get(ids[i]!);
        if (existing) return existing;
        const after = args.tasks[i]!.after;
        const deps = (Array.isArray(after) ? after : after ? [after] : []).map((name) => ids.indexOf(name));
        const promise = (async () => {
          const missing = deps.find((d) => d < 0 || d === i);
          if (missing !== undefined) return { id: ids[i]!, tool: args.tasks[i]!.tool, ok: false, skipped: "unknown or self dependency", output: `after names an unknown task` };
          const before = await Promise.all(deps.map(start));
          const failed = before.find((b) => !b.ok);
          if (failed) return { id: ids[i]!, tool: args.tasks[i]!.tool, ok: false, skipped: `after ${failed.id} failed`, output: "" };
          return runTask(i);
        })();
        done.set(ids[i]!, promise);
        return promise;
      };
      outcomes.push(...(await Promise.all(args.tasks.map((_, i) => start(i)))));
    } else {
      let stopped: string | undefined;
      for (let i = 0; i < args.tasks.length; i++) {
        if (stopped) {
          outcomes.push({ id: ids[i]!, tool: args.tasks[i]!.tool, ok: false, skipped: `pipeline stopped at ${stopped}`, output: "" });
          continue;
        }
        const outcome = await runTask(i);
        outcomes.push(outcome);
        if (!outcome.ok && args.topology === "pipeline") stopped = outcome.id;
      }
    }
    const succeeded = outcomes.filter((o) => o.ok).length;
    const details = { topology: args.topology, tasks: outcomes, succeeded, failed: outcomes.length - succeeded };
    const lines = outcomes.map((o) => `${o.ok ? "ok  " : o.skipped ? "skip" : "FAIL"} ${o.id} ${o.tool}${o.runId ? ` (${o.runId})` : ""}${o.skipped ? `: ${o.skipped}` : ""}`);
    return {
      ok: succeeded === outcomes.length,
      output: `dispatch ${args.topology}: ${succeeded}/${outcomes.length} succeeded\n${lines.join("\n")}`,
      details,
    };
  },
});
