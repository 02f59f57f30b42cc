import { z } from "zod";

export const APPLY_PATCH_MAX_CHARS = 16 * 1024 * 1024;

export const ApplyPatchArgsSchema = z.object({
  patch: z
    .string()
    .min(1, "must not be empty")
    .max(APPLY_PATCH_MAX_CHARS, `must be at most ${APPLY_PATCH_MAX_CHARS} characters`),
});
export type ApplyPatchArgs = z.infer<typeof ApplyPatchArgsSchema>;

export const PatchFileChangeSchema = z.object({
  path: z.string(),
  operation: z.enum(["add", "delete", "update", "move"]),
  /** For a move: where the file went. */
  movePath: z.string().optional(),
  linesAdded: z.number().int(),
  linesRemoved: z.number().int(),
});
export type PatchFileChange = z.infer<typeof PatchFileChangeSchema>;

export const ApplyPatchDetailsSchema = z.object({
  filesChanged: z.number().int(),
  operationsApplied: z.number().int(),
  fileChanges: z.array(PatchFileChangeSchema),
});
export type ApplyPatchDetails = z.infer<typeof ApplyPatchDetailsSchema>;
