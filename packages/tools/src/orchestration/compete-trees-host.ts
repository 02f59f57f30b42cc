import type { TreeApplyResult, TreeIdentity, TreeSnapshotResult, TreesClearResult, TreesCreateResult } from "@berth/protocol";
import type { CompeteRecord } from "./compete-record";

/**
 * The candidate trees of a compete or review plan, made and changed by the session's agent inside the container
 * (packages/agent/src/worktrees); the runner implements it over the agent connection. Trees are named by the
 * plan's run id and the candidate's id.
 */
export interface CompeteTreesHost {
  /** The workspace tree's identity now (what a plan's approval binds). */
  identity(): Promise<TreeIdentity>;
  create(competeId: string, candidates: readonly string[]): Promise<TreesCreateResult>;
  snapshot(competeId: string, candidate: string, base: string): Promise<TreeSnapshotResult>;
  apply(competeId: string, candidate: string, base: string, commit: string): Promise<TreeApplyResult>;
  clear(competeId: string): Promise<TreesClearResult>;
  /** What a finished compete or review of this session recorded (its run's details), or why it cannot be used. */
  recorded(runId: string): Promise<CompeteRecord | { refused: string }>;
}
