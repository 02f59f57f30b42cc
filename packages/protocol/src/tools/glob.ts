import { z } from "zod";
import { WorkspacePathSchema, noNul } from "./lenient";

export const GLOB_MAX_RESULTS = 100_000;
/** Folders glob skips unless includeIgnored (.git is always skipped). */
export const GLOB_IGNORED_DIRS = ["node_modules", "dist", "build", "target", ".venv"] as const;

export const GlobArgsSchema = z.object({
  pattern: z
    .string()
    .min(1, "must not be empty")
    .max(4096, "must be at most 4096 characters")
    .refine(noNul, "must not contain NUL bytes"),
  path: WorkspacePathSchema.default("."),
  maxResults: z
    .number()
    .int()
    .min(1, "must be at least 1")
    .max(GLOB_MAX_RESULTS, `must be at most ${GLOB_MAX_RESULTS}`)
    .default(1000),
  includeIgnored: z.boolean().default(false),
});
export type GlobArgs = z.infer<typeof GlobArgsSchema>;

export const GlobDetailsSchema = z.object({
  files: z.array(z.string()),
  truncated: z.boolean(),
});
export type GlobDetails = z.infer<typeof GlobDetailsSchema>;
