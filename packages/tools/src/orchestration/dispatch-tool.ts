import { z } from "zod";
import { DispatchTopologySchema, ReceiptPlanSchema, lenientArray, lenientObject, toolFailure } from "@berth/protocol";
import type { ToolResult } from "@berth/protocol";
import { defineTool } from "../registry/define-tool";
import type { CallClassification } from "../registry/tool-spec";
import { CompeteRecordSchema } from "./compete-record";

const TaskSchema = z.object({
  tool: z.string().min(1, "must not be empty").max(200),
  args: lenientObject(z.record(z.string(), z.unknown())).default({}),
  id: z.string().min(1).max(100).optional(),
  after: z.union([z.string(), z.array(z.string())]).optional(),
});

/** compete and review: candidates run in trees of their own, then judged by checks (compete-plan.ts). */
export const judgedTopology = (topology: string): topology is "compete" | "review" => topology === "compete" || topology === "review";

export const DispatchArgsSchema = z
  .object({
    tasks: lenientArray(z.array(TaskSchema).min(1, "must have at least one task").max(32, "must have at most 32 tasks")).optional(),
    topology: DispatchTopologySchema.default("parallel"),
    /** compete and review: run in each candidate's tree after its task; a candidate wins when every one passes. */
    checks: lenientArray(z.array(TaskSchema).min(1, "must have at least one check").max(8, "must have at most 8 checks")).optional(),
    /** compete and review: apply the winner to the workspace as part of the plan (otherwise op=apply-winner later). */
    apply: z.boolean().default(true),
    /** Return the plan's run id at once; `monitor collect` waits for it. */
    background: z.boolean().default(false),
    /** Not a plan: apply a finished compete's winner, or clear its trees (by the plan's runId). */
    op: z.enum(["apply-winner", "clear"]).optional(),
    runId: z.string().min(1, "must not be empty").max(100).optional(),
  })
  .superRefine((args, ctx) => {
    const issue = (path: string, message: string) => ctx.addIssue({ code: "custom", path: [path], message });
    if (args.op) {
      if (!args.runId) issue("runId", `is required for op=${args.op} (the compete's or review's run id)`);
      return;
    }
    if (!args.tasks) return issue("tasks", "is required (or op apply-winner | clear with runId)");
    if (args.topology === "compete" && args.tasks.length < 2) issue("tasks", `must have at least 2 candidates for topology=compete (got ${args.tasks.length})`);
    if (args.topology === "review" && args.tasks.length !== 1) issue("tasks", `must have exactly 1 builder task for topology=review (got ${args.tasks.length})`);
    if (judgedTopology(args.topology) && !args.checks) issue("checks", `is required for topology=${args.topology} (what judges a candidate)`);
    if (!judgedTopology(args.topology) && args.checks) issue("checks", `only topology compete or review runs checks (got topology=${args.topology})`);
  });
export type DispatchArgs = z.output<typeof DispatchArgsSchema>;

/** A plan that runs under a run of its own (its receipt): a compete or review, or any plan sent to the background. */
const ownRun = (args: DispatchArgs): boolean => !args.op && (judgedTopology(args.topology) || args.background);

/** An op changes the workspace (apply-winner) or removes trees (clear): a write; a plan is a dispatch. */
function classifyDispatch(args: DispatchArgs): CallClassification {
  return { actionClass: args.op ? "write" : "dispatch", recognised: true, alwaysAsk: false, reasons: [] };
}

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
  /** compete and review: the judgement (also in the receipt) and where the candidate trees are kept. */
  plan: ReceiptPlanSchema.optional(),
  trees: CompeteRecordSchema.shape.trees.optional(),
  /** background: the run ids `monitor collect` waits for. */
  runIds: z.array(z.string()).optional(),
});

/**
 * Runs tool tasks as one plan. Admission settled the plan before this runs (a plan-scale dispatch parks
 * once for the rendered plan text), so tasks run without asking again. parallel: all at once, honouring
 * `after`; sequential: in order, each whatever the last did; pipeline: in order, stopping at a failure.
 */
export const dispatchTool = defineTool({
  name: "dispatch",
  description:
    "Run several tool tasks as one plan: topology parallel (default; `after` names tasks to wait for), sequential (in order), pipeline (in order, stop at the first failure), compete (each task a candidate in its own git worktree, `checks` run in each, the first candidate passing every check is applied) or review (one builder task, applied only when its `checks` pass). A plan of more than one task is approved once as a whole. background=true returns the run id at once (monitor collect waits); op apply-winner or clear {runId} acts on a finished compete.",
  argsSchema: DispatchArgsSchema,
  resultSchema: DispatchDetailsSchema,
  reachesOthers: true,
  // Admission judges each task and check under its own name, then the plan as a whole (admit.ts evaluatePlan).
  plansCalls: true,
  classify: classifyDispatch,
  createsRun: ownRun,
  runKind: () => "dispatch",
  detach: (args) =>
    ownRun(args) && args.background
      ? (runId) => ({
          ok: true,
          output: `dispatch ${args.topology}: started in the background as run ${runId}; monitor {"mode":"collect","runIds":["${runId}"]} waits for it`,
          details: { topology: args.topology, tasks: [], succeeded: 0, failed: 0, runIds: [runId] },
        })
      : undefined,
  bindsTree: (args) => !args.op && judgedTopology(args.topology),
  // Applying a winner may have touched any file of the workspace: open IDEs refresh the whole tree.
  changedPaths: (args, result) => (result.ok && (args.op === "apply-winner" || (result.details?.plan as { applied?: boolean } | undefined)?.applied) ? ["."] : []),
  async run(args, ctx) {
    const host = ctx.host;
    if (!host) return toolFailure("unavailable", "dispatch: no tool host in this context");
    // The compete runner loads on first use: most sessions never run one.
    if (args.op || judgedTopology(args.topology)) return (await import("./compete-plan")).runJudged(args, ctx, host);
    const tasks = args.tasks ?? [];
    const ids = tasks.map((task, i) => task.id ?? `task${i + 1}`);
    const started = Date.now();
    let finished = 0;
    const runTask = async (i: number): Promise<TaskOutcome> => {
      const task = tasks[i]!;
      // Cancelled (the caller went away, or Stop): tasks not yet started never start.
      if (ctx.signal?.aborted) return { id: ids[i]!, tool: task.tool, ok: false, skipped: "cancelled", output: "" };
      const result: ToolResult = await host.callAdmitted(task.tool, task.args);
      finished += 1;
      const elapsed = ((Date.now() - started) / 1000).toFixed(1);
      ctx.onProgress?.({ progress: finished, total: tasks.length, message: `${elapsed}s: ${finished}/${tasks.length} tasks done; ${ids[i]} ${task.tool} ${result.ok ? "ok" : "failed"}` });
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
        const after = tasks[i]!.after;
        const deps = (Array.isArray(after) ? after : after ? [after] : []).map((name) => ids.indexOf(name));
        const promise = (async () => {
          const missing = deps.find((d) => d < 0 || d === i);
          if (missing !== undefined) return { id: ids[i]!, tool: tasks[i]!.tool, ok: false, skipped: "unknown or self dependency", output: `after names an unknown task` };
          const before = await Promise.all(deps.map(start));
          const failed = before.find((b) => !b.ok);
          if (failed) return { id: ids[i]!, tool: tasks[i]!.tool, ok: false, skipped: `after ${failed.id} failed`, output: "" };
          return runTask(i);
        })();
        done.set(ids[i]!, promise);
        return promise;
      };
      outcomes.push(...(await Promise.all(tasks.map((_, i) => start(i)))));
    } else {
      let stopped: string | undefined;
      for (let i = 0; i < tasks.length; i++) {
        if (stopped) {
          outcomes.push({ id: ids[i]!, tool: tasks[i]!.tool, ok: false, skipped: `pipeline stopped at ${stopped}`, output: "" });
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
