import type { ToolResult } from "@berth/protocol";
import { describe, expect, it } from "vitest";
import type { GatewayHost, ToolContext } from "../registry/tool-spec";
import { runJudged } from "./compete-plan";
import type { CompeteTreesHost } from "./compete-trees-host";
import { DispatchArgsSchema } from "./dispatch-tool";

/** Fake trees (the agent's side is tested in packages/agent/src/worktrees): records what was applied. */
function fakeTrees(applied: { candidate: string; commit: string }[]): CompeteTreesHost {
  return {
    identity: () => Promise.resolve({ mode: "git", text: "git HEAD=abc dirty=0 sha256=0" }),
    create: (competeId, candidates) =>
      Promise.resolve({
        mode: "git",
        identity: { mode: "git", text: "git HEAD=abc dirty=0 sha256=0" },
        trees: candidates.map((candidate) => ({ candidate, path: `/tmp/berth-compete/${competeId}/${candidate}`, branch: `berth/compete/${competeId}/${candidate}`, base: "b".repeat(40) })),
      }),
    snapshot: (_id, candidate) => Promise.resolve({ commit: candidate.padEnd(40, "0"), changes: [{ path: "lib.js", status: "modified" }] }),
    apply: (_id, candidate, _base, commit) => {
      applied.push({ candidate, commit });
      return Promise.resolve({ applied: true, files: [{ path: "lib.js", status: "modified", sha256: "0".repeat(64) }] });
    },
    clear: () => Promise.resolve({ removedTrees: 0, removedBranches: 0 }),
    recorded: () => Promise.resolve({ refused: "not used here" }),
  };
}

/** A host whose calls answer by the candidate's tree: `exits[candidate][tool]` is the exit code bash reports. */
function fakeHost(exits: Record<string, Record<string, number>>, calls: string[]): GatewayHost {
  const bash = (exitCode: number): ToolResult => ({ ok: true, output: `exit ${exitCode}`, details: { exitCode } });
  return {
    catalogue: () => [],
    call: () => Promise.reject(new Error("a plan's tasks are admitted")),
    callAdmitted: (tool, args, opts) => {
      const candidate = opts?.worktree?.split("/")[1] ?? "";
      const name = tool === "bash" ? String((args as { command: string }).command) : tool;
      calls.push(`${candidate}:${name}`);
      const code = exits[candidate]?.[name] ?? 0;
      return Promise.resolve(tool === "bash" ? bash(code) : code === 0 ? { ok: true, output: "patched" } : { ok: false, output: "patch failed" });
    },
  };
}

const task = (id: string) => ({ id, tool: "apply_patch", args: { patch: id } });
const checks = [{ tool: "bash", args: { command: "test" } }, { tool: "bash", args: { command: "lint" } }];

async function judge(args: Record<string, unknown>, exits: Record<string, Record<string, number>>) {
  const applied: { candidate: string; commit: string }[] = [];
  const calls: string[] = [];
  const ctx: ToolContext = { sessionId: "s1", userId: "u1", callId: "run_1", caller: "agent", sandbox: { callTool: () => Promise.reject(new Error("no sandbox")) }, trees: fakeTrees(applied) };
  const result = await runJudged(DispatchArgsSchema.parse(args), ctx, fakeHost(exits, calls));
  return { result, applied, calls };
}

describe("compete judge", () => {
  it("the first candidate in task order that passes every check wins and is applied, ties going to the earlier one", async () => {
    const { result, applied } = await judge({ topology: "compete", tasks: [task("a"), task("b"), task("c")], checks }, { a: { lint: 1 } });
    expect(result.output.split("\n")).toEqual([
      "dispatch compete: winner b (2 of 3 passed every check); applied b to /workspace: lib.js (modified)",
      "FAIL a apply_patch: 1/2 checks passed; bash ok, bash failed",
      "WIN  b apply_patch: 2/2 checks passed; bash ok, bash ok",
      "ok   c apply_patch: 2/2 checks passed; bash ok, bash ok",
      'trees: /tmp/berth-compete/run_1/<candidate> inside the container (git worktrees, branches berth/compete/run_1/<candidate>), kept for inspection until dispatch {"op":"clear","runId":"run_1"}',
    ]);
    expect(applied).toEqual([{ candidate: "b", commit: "b".padEnd(40, "0") }]);
    expect(result.details).toMatchObject({ succeeded: 2, failed: 1, plan: { winner: "b", applied: true } });
  });

  it("a candidate whose task fails runs no check; with no candidate passing every check nothing is applied", async () => {
    const { result, applied, calls } = await judge({ topology: "compete", tasks: [task("a"), task("b")], checks }, { a: { apply_patch: 1 }, b: { test: 2 } });
    expect(result.ok).toBe(false);
    expect(result.output.split("\n").slice(0, 3)).toEqual([
      "dispatch compete: no winner; no candidate passed every check: the workspace is unchanged",
      "FAIL a apply_patch: task failed: checks not run",
      "FAIL b apply_patch: 1/2 checks passed; bash failed, bash ok",
    ]);
    expect(calls.filter((c) => c.startsWith("a:"))).toEqual(["a:apply_patch"]);
    expect(applied).toEqual([]);
  });

  it("a review applies its builder only when the gate passes; apply=false leaves the winner for op apply-winner", async () => {
    const failed = await judge({ topology: "review", tasks: [task("fix")], checks }, { fix: { test: 1 } });
    expect(failed.result.output.split("\n")[0]).toBe("dispatch review: no winner; the review gate failed: the workspace is unchanged");
    expect(failed.applied).toEqual([]);
    const held = await judge({ topology: "compete", tasks: [task("a"), task("b")], checks, apply: false }, {});
    expect(held.result.output.split("\n")[0]).toBe('dispatch compete: winner a (2 of 2 passed every check); not applied (apply=false): dispatch {"op":"apply-winner","runId":"run_1"} applies it');
    expect(held.applied).toEqual([]);
  });

  it("refuses candidate ids that cannot name a tree, and plans of the wrong shape, by field", async () => {
    const bad = await judge({ topology: "compete", tasks: [task("../x"), task("b")], checks }, {});
    expect(bad.result.output).toBe(`dispatch: task id "../x" must be 1-64 letters, digits, '_', '.' or '-' (it names the candidate's tree and branch)`);
    expect(DispatchArgsSchema.safeParse({ topology: "compete", tasks: [task("a")], checks }).error?.issues[0]?.message).toBe("must have at least 2 candidates for topology=compete (got 1)");
    expect(DispatchArgsSchema.safeParse({ topology: "review", tasks: [task("a")] }).error?.issues[0]).toMatchObject({ path: ["checks"], message: "is required for topology=review (what judges a candidate)" });
    expect(DispatchArgsSchema.safeParse({ topology: "parallel", tasks: [task("a")], checks }).error?.issues[0]?.message).toBe("only topology compete or review runs checks (got topology=parallel)");
    expect(DispatchArgsSchema.safeParse({ op: "clear" }).error?.issues[0]).toMatchObject({ path: ["runId"], message: "is required for op=clear (the compete's or review's run id)" });
  });
});
