import { z } from "zod";
import { ApprovalRequestSchema, ApprovalStatusSchema } from "../admission";

// ---- /api/approvals (docs/api.md "REST"); the decision body is ApprovalDecisionBodySchema (admission.ts) ----

/** `GET /api/approvals` query: no `status` lists every approval, newest first, up to `limit`. */
export const ApprovalListQuerySchema = z.object({
  status: ApprovalStatusSchema.optional(),
  limit: z.coerce.number().int().min(1).max(500).default(200),
});
export type ApprovalListQuery = z.infer<typeof ApprovalListQuerySchema>;

/** `GET /api/approvals`. */
export const ApprovalListSchema = z.object({ approvals: z.array(ApprovalRequestSchema) });

/** Most bytes of one file `GET /api/approvals/:id/files` returns (the rest is cut, `truncated`). */
export const APPROVAL_FILE_MAX_CHARS = 256 * 1024;

/**
 * One file a parked call binds (its text's `file <path> sha256=…` lines) as it is now in the session: what a
 * diff of the change is made against. `bound` is the sha256 the approval binds (null: the file was absent),
 * `current` what the file hashes to now (null: absent); when they differ, approving fails `changed since
 * approval` and the diff is not what would run. `note`: why the content could not be read (binary, the
 * sandbox is not up).
 */
export const ApprovalFileSchema = z.object({
  path: z.string(),
  bound: z.string().nullable(),
  current: z.string().nullable(),
  content: z.string().optional(),
  truncated: z.boolean(),
  note: z.string().optional(),
});
export type ApprovalFile = z.infer<typeof ApprovalFileSchema>;
/** `GET /api/approvals/:id/files`. */
export const ApprovalFilesSchema = z.object({ files: z.array(ApprovalFileSchema) });
export type ApprovalFiles = z.infer<typeof ApprovalFilesSchema>;
