import { TreeSegmentSchema, toolFailure } from "@berth/protocol";
import type { ReceiptPlan, ToolResult, TreesCreateResult } from "@berth/protocol";
import type { GatewayHost, ToolContext } from "../registry/tool-spec";
import type { CompeteRecord } from "./compete-record";
import type { CompeteTreesHost } from "./compete-trees-host";
import type { DispatchArgs } from "./dispatch-tool";

const PREVIEW = 2000;

type Candidate = ReceiptPlan["candidates"][number];

interface Judged {
  candidate: Candidate;
  tool: string;
  output: string;
  skipped?: string;
}

/**
 * Whether a task or check passed: the tool succeeded and, for a command (bash exit code, run_script outcome), the
 * command did too; a bash call that ran `node test.js` to exit 1 is a result with ok true and exitCode 1.
 */
export function passed(result: ToolResult): boolean {
  const details = result.details ?? {};
  if (!result.ok) return false;
  if (typeof details.exitCode === "number" && details.exitCode !== 0) return false;
  return typeof details.outcome !== "string" || details.outcome === "succeeded";
}

const preview = (text: string): string => (text.length > PREVIEW ? `${text.slice(0, PREVIEW)}…` : text);
const message = (error: unknown): string => (error instanceof Error ? error.message : String(error)).replace(/^Internal error: /, "");

/**
 * A compete or review plan, or an op on one. Admission approved the plan as a whole (its text binds the tree),
 * so every task and check runs as a task of that plan, each in its candidate's tree.
 */
export async function runJudged(args: DispatchArgs, ctx: ToolContext, host: GatewayHost): Promise<ToolResult> {
  const trees = ctx.trees;
  if (!trees) return toolFailure("unavailable", "dispatch: no compete trees in this context");
  if (args.op) return runOp(args.op, args.runId ?? "", trees);
  return runPlan(args, ctx, host, trees);
}

/**
 * Each candidate's task runs in its own tree, its changes are committed on its branch, then every check runs
 * there. The judge: the first candidate (in task order) whose task succeeded and whose every check passed wins;
 * none wins when no candidate passes them all. A review is a compete of one builder: its checks are the gate.
 */
async function runPlan(args: DispatchArgs, ctx: ToolContext, host: GatewayHost, trees: CompeteTreesHost): Promise<ToolResult> {
  const topology = args.topology as "compete" | "review";
  const tasks = args.tasks ?? [];
  const checks = args.checks ?? [];
  const ids = tasks.map((task, i) => task.id ?? (topology === "review" ? "builder" : `candidate${i + 1}`));
  const badId = ids.find((id) => !TreeSegmentSchema.safeParse(id).success);
  if (badId !== undefined) return toolFailure("invalid_arguments", `dispatch: task id ${JSON.stringify(badId)} must be 1-64 letters, digits, '_', '.' or '-' (it names the candidate's tree and branch)`);
  if (new Set(ids).size !== ids.length) return toolFailure("invalid_arguments", "dispatch: task ids must differ (each names a candidate's tree)");

  const competeId = ctx.callId;
  let made: TreesCreateResult;
  try {
    made = await trees.create(competeId, ids);
  } catch (error) {
    // Trees made before the failure go with it: nothing is left half-made.
    await trees.clear(competeId).catch(() => undefined);
    return toolFailure("sandbox_error", `dispatch ${topology}: could not make the candidate trees: ${message(error)}`);
  }
  // The approval bound the tree as it was when the plan parked: candidates start from exactly that tree, or none does.
  const bound = ctx.approvedText?.split("\n").find((line) => line.startsWith("tree "));
  if (bound !== undefined && bound !== `tree ${made.identity.text}`) {
    await trees.clear(competeId).catch(() => undefined);
    return toolFailure("changed_since_approval", `dispatch ${topology}: changed since approval: the workspace is now ${made.identity.text}; the approval bound ${bound.slice("tree ".length)}`);
  }
  const base = made.trees[0]!.base;
  let finished = 0;
  const started = Date.now();

  const runCandidate = async (i: number): Promise<Judged> => {
    const id = ids[i]!;
    const task = tasks[i]!;
    const worktree = `${competeId}/${id}`;
    const candidate: Candidate = { id, ok: false, runId: null, commit: null, checks: [] };
    if (ctx.signal?.aborted) return { candidate, tool: task.tool, output: "", skipped: "cancelled" };
    const result = await host.callAdmitted(task.tool, task.args, { worktree });
    candidate.ok = passed(result);
    candidate.runId = result.runId ?? null;
    const report = (): void => {
      finished += 1;
      const elapsed = ((Date.now() - started) / 1000).toFixed(1);
      ctx.onProgress?.({ progress: finished, total: tasks.length, message: `${elapsed}s: ${finished}/${tasks.length} candidates judged; ${id} ${candidate.checks.filter((c) => c.ok).length}/${checks.length} checks passed` });
    };
    if (!candidate.ok) {
      report();
      return { candidate, tool: task.tool, output: preview(result.output), skipped: "task failed: checks not run" };
    }
    try {
      candidate.commit = (await trees.snapshot(competeId, id, base)).commit;
    } catch (error) {
      candidate.ok = false;
      report();
      return { candidate, tool: task.tool, output: preview(result.output), skipped: `its changes could not be committed: ${message(error)}` };
    }
    // Every check runs, so the report says how many passed, not only the first that failed.
    for (const check of checks) {
      if (ctx.signal?.aborted) break;
      const checked = await host.callAdmitted(check.tool, check.args, { worktree });
      candidate.checks.push({ tool: check.tool, ok: passed(checked), runId: checked.runId ?? null, receiptId: checked.receiptId ?? null });
    }
    report();
    return { candidate, tool: task.tool, output: preview(result.output) };
  };
  const judged = await Promise.all(tasks.map((_, i) => runCandidate(i)));

  const passedAll = (c: Candidate) => c.ok && c.checks.length === checks.length && c.checks.every((check) => check.ok);
  const winner = judged.find((j) => passedAll(j.candidate))?.candidate ?? null;
  const record: CompeteRecord = {
    plan: { topology, tree: made.identity.text, candidates: judged.map((j) => j.candidate), winner: winner?.id ?? null, applied: false },
    trees: {
      competeId,
      mode: made.mode,
      base,
      root: made.trees[0]!.path.replace(/\/[^/]+$/, ""),
      candidates: made.trees.map(({ candidate, path, branch }) => ({ candidate, path, branch })),
    },
  };

  let applyNote: string;
  let refused: string | undefined;
  if (!winner) applyNote = topology === "review" ? "the review gate failed: the workspace is unchanged" : "no candidate passed every check: the workspace is unchanged";
  else if (!args.apply) applyNote = `not applied (apply=false): dispatch {"op":"apply-winner","runId":"${competeId}"} applies it`;
  else {
    const applied = await applyWinner(trees, record, winner);
    if (applied.ok) {
      record.plan.applied = true;
      applyNote = applied.note;
    } else {
      refused = applied.note;
      applyNote = `not applied: ${applied.note}`;
    }
  }

  const lines = judged.map(({ candidate: c, tool, skipped }) => {
    const score = `${c.checks.filter((check) => check.ok).length}/${checks.length} checks passed`;
    const mark = c.id === winner?.id ? "WIN " : passedAll(c) ? "ok  " : "FAIL";
    const runs = c.checks.map((check) => `${check.tool} ${check.ok ? "ok" : "failed"}${check.runId ? ` (${check.runId})` : ""}`).join(", ");
    return `${mark} ${c.id} ${tool}${c.runId ? ` (${c.runId})` : ""}: ${skipped ?? score}${runs ? `; ${runs}` : ""}`;
  });
  const where = `trees: ${record.trees.root}/<candidate> inside the container (${made.mode === "git" ? "git worktrees" : "copies"}, branches berth/compete/${competeId}/<candidate>), kept for inspection until dispatch {"op":"clear","runId":"${competeId}"}`;
  const succeeded = judged.filter((j) => passedAll(j.candidate)).length;
  const details = {
    topology,
    tasks: judged.map(({ candidate: c, tool, output, skipped }) => ({
      id: c.id,
      tool,
      ok: passedAll(c),
      output,
      ...(skipped ? { skipped } : {}),
      ...(c.runId ? { runId: c.runId } : {}),
    })),
    succeeded,
    failed: judged.length - succeeded,
    ...record,
  };
  const head = winner
    ? `dispatch ${topology}: winner ${winner.id} (${succeeded} of ${judged.length} passed every check); ${applyNote}`
    : `dispatch ${topology}: no winner; ${applyNote}`;
  const output = `${head}\n${lines.join("\n")}\n${where}`;
  if (refused) return toolFailure("conflict", output, details);
  return { ok: winner !== null, output, details };
}

/** Applies the winner's commit to the workspace (the agent checks its branch and that the workspace did not move). */
async function applyWinner(trees: CompeteTreesHost, record: CompeteRecord, winner: Candidate): Promise<{ ok: boolean; note: string }> {
  if (!winner.commit) return { ok: false, note: `candidate ${winner.id} has no commit to apply` };
  try {
    const result = await trees.apply(record.trees.competeId, winner.id, record.trees.base, winner.commit);
    if (!result.applied) return { ok: false, note: `apply-winner refused: ${result.reason}` };
    const files = result.files.map((f) => `${f.path} (${f.status})`).join(", ");
    return { ok: true, note: `applied ${winner.id} to /workspace: ${files || "no changes"}` };
  } catch (error) {
    return { ok: false, note: `apply-winner failed: ${message(error)}` };
  }
}

/** apply-winner: the recorded judgement, applied; clear: the trees and branches, removed. */
async function runOp(op: "apply-winner" | "clear", runId: string, trees: CompeteTreesHost): Promise<ToolResult> {
  const record = await trees.recorded(runId);
  if ("refused" in record) return toolFailure("refused", record.refused);
  if (op === "clear") {
    try {
      const cleared = await trees.clear(record.trees.competeId);
      return { ok: true, output: `dispatch clear ${runId}: removed ${cleared.removedTrees} tree(s) under ${record.trees.root} and ${cleared.removedBranches} branch(es)`, details: { ...cleared } };
    } catch (error) {
      return toolFailure("sandbox_error", `dispatch clear ${runId}: ${message(error)}`);
    }
  }
  const winner = record.plan.candidates.find((c) => c.id === record.plan.winner);
  if (!winner) return toolFailure("no_winner", `dispatch apply-winner: ${record.plan.topology} ${runId} has no winner (no candidate passed every check)`);
  if (record.plan.applied) return toolFailure("conflict", `dispatch apply-winner: ${runId}'s winner ${winner.id} was already applied by the plan`);
  const applied = await applyWinner(trees, record, winner);
  return applied.ok ? { ok: true, output: `dispatch apply-winner ${runId}: ${applied.note}`, details: { runId, winner: winner.id } } : toolFailure("conflict", `dispatch apply-winner ${runId}: ${applied.note}`);
}
