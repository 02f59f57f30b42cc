import { z } from "zod";

/** What `context` can tell (docs/tools.md, context). */
export const CONTEXT_SCOPES = ["workspace", "settings", "skills", "recall", "budget"] as const;
export type ContextScope = (typeof CONTEXT_SCOPES)[number];

/** A page of `context settings` rules or a `recall` read is at most this many items or bytes. */
export const CONTEXT_MAX_LIMIT = 1_000_000;

export const ContextArgsSchema = z.object({
  scope: z.enum(CONTEXT_SCOPES, {
    error: (issue) => `scope: must be one of ${CONTEXT_SCOPES.join(", ")} (got ${JSON.stringify(issue.input)})`,
  }),
  /** settings: keep only the rules and limits whose text contains this (case-insensitive). */
  query: z.string().max(200, "must be at most 200 characters").optional(),
  /** settings: the first rule to show; recall: the byte offset to read from. */
  offset: z.number().int().min(0, "must be at least 0").optional(),
  /** settings: rules per page (default 20); recall: bytes to read (default: what the cap allows). */
  limit: z
    .number()
    .int()
    .min(1, "must be at least 1")
    .max(CONTEXT_MAX_LIMIT, `must be at most ${CONTEXT_MAX_LIMIT}`)
    .optional(),
  /** skills: the skill to load (or to activate / deactivate). */
  name: z.string().min(1, "must not be empty").max(64, "must be at most 64 characters").optional(),
  /** skills with a name: true activates it in this session (activation "model" only), false deactivates it. */
  activate: z.boolean().optional(),
  /** recall: the ref a truncated result's notice named. */
  ref: z.string().min(1, "must not be empty").max(200, "must be at most 200 characters").optional(),
});
export type ContextArgs = z.infer<typeof ContextArgsSchema>;

/** The agent's summary of /workspace (the `context_workspace` agent call). */
export const WorkspaceSummarySchema = z.object({
  root: z.string(),
  git: z.union([
    z.object({
      repository: z.literal(true),
      branch: z.string().nullable(),
      upstream: z.string().nullable(),
      ahead: z.number().int(),
      behind: z.number().int(),
      dirty: z.array(z.object({ path: z.string(), status: z.string() })),
      dirtyTruncated: z.boolean(),
      lastCommits: z.array(z.object({ sha: z.string(), subject: z.string(), author: z.string(), date: z.string() })),
    }),
    z.object({ repository: z.literal(false), reason: z.string() }),
  ]),
  /** Top-level entries, folders with a trailing "/". */
  tree: z.array(z.string()),
  treeTruncated: z.boolean(),
  /** Files per language (by extension), largest first; ignored folders as glob skips them. */
  languages: z.array(z.object({ language: z.string(), files: z.number().int() })),
  filesCounted: z.number().int(),
  countTruncated: z.boolean(),
  agentsMd: z.object({ exists: z.boolean(), bytes: z.number().int() }),
});
export type WorkspaceSummary = z.infer<typeof WorkspaceSummarySchema>;

/** A skill as `context skills` lists it. */
export const ContextSkillSchema = z.object({
  name: z.string(),
  description: z.string(),
  activation: z.enum(["model", "manual"]),
  allowedTools: z.array(z.string()),
  active: z.boolean(),
  /** The stored body no longer matches the hash recorded at install: cannot be activated until accepted. */
  drifted: z.boolean(),
});
export type ContextSkill = z.infer<typeof ContextSkillSchema>;

/** What `context` returns: one object per scope, each naming its scope. */
export const ContextDetailsSchema = z.object({ scope: z.enum(CONTEXT_SCOPES) }).catchall(z.unknown());
export type ContextDetails = z.infer<typeof ContextDetailsSchema>;
