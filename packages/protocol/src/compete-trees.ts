import { z } from "zod";

/**
 * The candidate trees of a dispatch `compete` or `review` plan (docs/tools.md, dispatch): the agent makes them
 * inside the container, one git worktree per candidate (a copy with a repository of its own where /workspace is
 * not a git repository), records each candidate's changes as a commit on its own branch, and applies the
 * winner's commit back into /workspace. The runner only names trees: `<competeId>/<candidate>`.
 */

/** A compete id (the plan's run id) or a candidate id: safe as a folder and a branch name segment. */
export const TreeSegmentSchema = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/, "must be 1-64 letters, digits, '_', '.' or '-', starting with a letter or digit")
  .refine((s) => !s.includes(".."), "must not contain '..'");

/** `<competeId>/<candidate>`: the tree a tool call runs in (ToolCallParams.worktree). */
export const TreeNameSchema = z
  .string()
  .refine((s) => s.split("/").length === 2 && s.split("/").every((part) => TreeSegmentSchema.safeParse(part).success), "must be <competeId>/<candidate>");

/** How the trees were made: git worktrees of /workspace, or copies (each with a repository of its own). */
export const TreeModeSchema = z.enum(["git", "copy"]);
export type TreeMode = z.infer<typeof TreeModeSchema>;

/** What the tree is now, as an approval binds it: HEAD and a hash of the dirty paths, or a hash of every file. */
export const TreeIdentitySchema = z.object({
  mode: TreeModeSchema,
  /** One line: `git HEAD=<sha> dirty=<n> sha256=<hex>` or `copy files=<n> sha256=<hex>`. */
  text: z.string(),
});
export type TreeIdentity = z.infer<typeof TreeIdentitySchema>;

export const TreesCreateParamsSchema = z.object({
  competeId: TreeSegmentSchema,
  candidates: z.array(TreeSegmentSchema).min(1).max(16),
});
export type TreesCreateParams = z.infer<typeof TreesCreateParamsSchema>;

export const CandidateTreeSchema = z.object({
  candidate: z.string(),
  /** Where the tree is inside the container. */
  path: z.string(),
  /** The branch its changes are committed on (in /workspace's repository, or the copy's own). */
  branch: z.string(),
  /** The commit holding the workspace as it was when the trees were made (dirty files included). */
  base: z.string(),
});
export type CandidateTree = z.infer<typeof CandidateTreeSchema>;

export const TreesCreateResultSchema = z.object({
  mode: TreeModeSchema,
  identity: TreeIdentitySchema,
  trees: z.array(CandidateTreeSchema),
});
export type TreesCreateResult = z.infer<typeof TreesCreateResultSchema>;

export const TreeChangeSchema = z.object({
  path: z.string(),
  status: z.enum(["added", "modified", "deleted"]),
});
export type TreeChange = z.infer<typeof TreeChangeSchema>;

export const TreeSnapshotParamsSchema = z.object({
  competeId: TreeSegmentSchema,
  candidate: TreeSegmentSchema,
  base: z.string().regex(/^[0-9a-f]{40,64}$/, "must be a commit id"),
});
export type TreeSnapshotParams = z.infer<typeof TreeSnapshotParamsSchema>;

export const TreeSnapshotResultSchema = z.object({
  /** The commit on the candidate's branch holding its changes (what apply-winner applies). */
  commit: z.string(),
  changes: z.array(TreeChangeSchema),
});
export type TreeSnapshotResult = z.infer<typeof TreeSnapshotResultSchema>;

export const TreeApplyParamsSchema = TreeSnapshotParamsSchema.extend({
  commit: z.string().regex(/^[0-9a-f]{40,64}$/, "must be a commit id"),
});
export type TreeApplyParams = z.infer<typeof TreeApplyParamsSchema>;

/** Applied: every changed path written or removed. Refused: nothing was written, and why (by path). */
export const TreeApplyResultSchema = z.union([
  z.object({ applied: z.literal(true), files: z.array(TreeChangeSchema.extend({ sha256: z.string().nullable() })) }),
  z.object({ applied: z.literal(false), reason: z.string(), conflicts: z.array(z.string()) }),
]);
export type TreeApplyResult = z.infer<typeof TreeApplyResultSchema>;

export const TreesClearParamsSchema = z.object({ competeId: TreeSegmentSchema });
export const TreesClearResultSchema = z.object({ removedTrees: z.number().int(), removedBranches: z.number().int() });
export type TreesClearResult = z.infer<typeof TreesClearResultSchema>;

/** The agent methods of compete trees (runner → agent). */
export const TreeMethod = {
  Identity: "trees.identity",
  Create: "trees.create",
  Snapshot: "trees.snapshot",
  Apply: "trees.apply",
  Clear: "trees.clear",
} as const;
export type TreeMethodName = (typeof TreeMethod)[keyof typeof TreeMethod];

const TREE_METHODS: ReadonlySet<string> = new Set(Object.values(TreeMethod));
export const isTreeMethod = (method: string): method is TreeMethodName => TREE_METHODS.has(method);
