import {
  TreeApplyParamsSchema,
  TreeMethod,
  TreeSnapshotParamsSchema,
  TreesClearParamsSchema,
  TreesCreateParamsSchema,
  formatIssues,
  type TreeMethodName,
} from "@berth/protocol";
import type { z } from "zod";
import type { AgentConfig } from "../config";
import { ToolFailureError } from "../tools/tool-failure-error";
import type { Workspace } from "../workspace/workspace";
import { applyTree, clearTrees, createTrees, snapshotTree, treeIdentity } from "./compete-trees";

/** A refused trees.* request (bad params); the RPC loop answers it as a JSON-RPC error with this code. */
export class TreeFault extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
    this.name = "TreeFault";
  }
}

const INVALID_PARAMS = -32602;
const INTERNAL_ERROR = -32603;

function parse<S extends z.ZodType>(schema: S, method: string, params: unknown): z.output<S> {
  const parsed = schema.safeParse(params);
  if (!parsed.success) throw new TreeFault(INVALID_PARAMS, `Invalid ${method} params: ${formatIssues(parsed.error, "params")}`);
  return parsed.data;
}

/** The trees.* methods (compete and review candidate trees, compete-trees.ts); a refusal keeps its own message. */
export async function dispatchTreeMethod(method: TreeMethodName, params: unknown, deps: { workspace: Workspace; config: AgentConfig }): Promise<unknown> {
  try {
    return await run(method, params, deps);
  } catch (error) {
    throw error instanceof ToolFailureError ? new TreeFault(INTERNAL_ERROR, error.message) : error;
  }
}

function run(method: TreeMethodName, params: unknown, deps: { workspace: Workspace; config: AgentConfig }): Promise<unknown> {
  const { workspace, config } = deps;
  switch (method) {
    case TreeMethod.Identity:
      return treeIdentity(workspace, config);
    case TreeMethod.Create:
      return createTrees(workspace, config, parse(TreesCreateParamsSchema, method, params));
    case TreeMethod.Snapshot:
      return snapshotTree(config, parse(TreeSnapshotParamsSchema, method, params));
    case TreeMethod.Apply:
      return applyTree(workspace, config, parse(TreeApplyParamsSchema, method, params));
    case TreeMethod.Clear:
      return clearTrees(workspace, config, parse(TreesClearParamsSchema, method, params).competeId);
  }
}
