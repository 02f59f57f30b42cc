import { z } from "zod";

export const APPLY_PATCH_MAX_CHARS = 16 * 1024 * 1024;

export const ApplyPatchArgsSchema = z.object({
  patch: z
    .string()
    .min(1, "must not be empty")
    .max(APPLY_PATCH_MAX_CHARS, `must be at most ${APPLY_PATCH_MAX_CHARS} characters`),
});
export type ApplyPatchArgs = z.infer<typeof ApplyPatchArgsSchema>;

export interface PatchFileChange {
  path: string;
  operation: "add" | "delete" | "update" | "move";
  /** For a move: where the file went. */
  movePath?: string;
  linesAdded: number;
  linesRemoved: number;
}

export interface ApplyPatchDetails {
  filesChanged: number;
  operationsApplied: number;
  fileChanges: PatchFileChange[];
}
