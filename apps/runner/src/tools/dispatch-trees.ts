import type { Repositories } from "@berth/db";
import type { ResultSchema, SandboxDriver } from "@berth/sandbox";
import { CompeteRecordSchema, type CompeteTreesHost } from "@berth/tools";
import {
  TreeApplyResultSchema,
  TreeIdentitySchema,
  TreeMethod,
  TreeSnapshotResultSchema,
  TreesClearResultSchema,
  TreesCreateResultSchema,
} from "@berth/protocol";

/** Making a tree copies or checks out the workspace per candidate: more than one tool call's worth of time. */
const TREE_TIMEOUT_MS = 120_000;

/**
 * A session's compete and review trees: the agent makes and applies them in the container (trees.* methods,
 * every reply checked against its schema); the judgement a finished plan recorded is read back from its run,
 * this session's only.
 */
export function createCompeteTreesHost(deps: { driver: Pick<SandboxDriver, "request">; repos: Repositories; sessionId: string }): CompeteTreesHost {
  const request = <T>(method: string, params: unknown, schema: ResultSchema<T>) => deps.driver.request(deps.sessionId, method, params, schema, { timeoutMs: TREE_TIMEOUT_MS });
  return {
    identity: () => request(TreeMethod.Identity, {}, TreeIdentitySchema),
    create: (competeId, candidates) => request(TreeMethod.Create, { competeId, candidates }, TreesCreateResultSchema),
    snapshot: (competeId, candidate, base) => request(TreeMethod.Snapshot, { competeId, candidate, base }, TreeSnapshotResultSchema),
    apply: (competeId, candidate, base, commit) => request(TreeMethod.Apply, { competeId, candidate, base, commit }, TreeApplyResultSchema),
    clear: (competeId) => request(TreeMethod.Clear, { competeId }, TreesClearResultSchema),
    async recorded(runId) {
      const run = await deps.repos.runs.get(runId);
      if (!run) return { refused: `dispatch: run not found: ${runId}` };
      if (run.sessionId !== deps.sessionId) return { refused: `dispatch: run ${runId} belongs to another session` };
      if (run.status === "running") return { refused: `dispatch: ${runId} is still running; monitor {"mode":"collect","runIds":["${runId}"]} waits for it` };
      const record = CompeteRecordSchema.safeParse(run.details);
      return record.success ? record.data : { refused: `dispatch: run ${runId} is not a compete or review plan (tool ${run.tool})` };
    },
  };
}
