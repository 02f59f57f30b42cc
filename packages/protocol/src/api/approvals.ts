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
