import type { FastifyInstance } from "fastify";
import { z } from "zod";
import { AppError, ApprovalDecisionBodySchema } from "@berth/protocol";
import { APPROVAL_ERROR_STATUS, type ApprovalService } from "@berth/tools";
import type { PrismaApprovalStore } from "../../approvals/prisma-approval-store";
import { parse, requireRole } from "../validate";

const ListQuerySchema = z.object({
  status: z.enum(["pending", "approved", "denied", "expired", "consumed"]).optional(),
  limit: z.coerce.number().int().min(1).max(500).default(200),
});

/** Operators see and decide approvals; a decision binds to the sha256 the operator saw. */
export function registerApprovalRoutes(app: FastifyInstance, deps: { approvals: ApprovalService; store: PrismaApprovalStore }): void {
  app.get("/api/approvals", async (request) => {
    requireRole(request, "viewer");
    const query = parse(ListQuerySchema, request.query, "query");
    await deps.approvals.expireDue();
    return { approvals: await deps.store.list(query.status, query.limit) };
  });

  app.post<{ Params: { id: string } }>("/api/approvals/:id", async (request) => {
    const principal = requireRole(request, "operator");
    const body = parse(ApprovalDecisionBodySchema, request.body);
    const outcome = await deps.approvals.decide(request.params.id, {
      decision: body.decision,
      sha256: body.sha256,
      decidedBy: principal.name,
      ...(body.note ? { note: body.note } : {}),
    });
    if (!outcome.ok) {
      const status = APPROVAL_ERROR_STATUS[outcome.error.kind];
      throw new AppError({ code: status === 404 ? "not_found" : "conflict", message: outcome.error.message });
    }
    return outcome.request;
  });
}
