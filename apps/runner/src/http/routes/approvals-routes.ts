import type { FastifyInstance, FastifyRequest } from "fastify";
import { AppError, ApprovalDecisionBodySchema, ApprovalListQuerySchema } from "@berth/protocol";
import { APPROVAL_ERROR_STATUS, type ApprovalService } from "@berth/tools";
import type { ApprovalRepository } from "@berth/db";
import { authorize } from "../../auth/authorize";
import { authorized, listScopeOf } from "../authorized";
import { parse } from "../validate";
import { requirePrincipal } from "../build-server";

/**
 * Operators see and decide approvals; a decision binds to the sha256 the operator saw. Whoever asked may
 * cancel their own parked call (`decision: "cancel"`): recorded as cancelled, and the waiting caller gets a
 * `cancelled` result.
 */
export function registerApprovalRoutes(app: FastifyInstance, deps: { approvals: ApprovalService; store: ApprovalRepository }): void {
  const cancel = async (request: FastifyRequest<{ Params: { id: string } }>, sha256: string) => {
    const principal = requirePrincipal(request);
    const current = await deps.approvals.get(request.params.id);
    if (!current) throw new AppError({ code: "not_found", message: `Approval not found: ${request.params.id}` });
    // "own" here is whoever asked (requests record the asker's name), not the session's owner (docs/api.md, Roles).
    authorize(principal, "approval", "cancel", { id: current.id, ownerId: current.requestedBy === principal.name ? principal.userId : null });
    return deps.approvals.cancel(current.id, { sha256, cancelledBy: principal.name });
  };

  app.get("/api/approvals", async (request) => {
    // A developer sees their own sessions' approvals only (docs/api.md, Roles: approval list).
    const { ownerId } = listScopeOf(request, "approval", "list");
    const query = parse(ApprovalListQuerySchema, request.query, "query");
    await deps.approvals.expireDue();
    return { approvals: await deps.store.list(query.status, query.limit, ownerId) };
  });

  app.post<{ Params: { id: string } }>("/api/approvals/:id", async (request) => {
    const body = parse(ApprovalDecisionBodySchema, request.body);
    const outcome = body.decision === "cancel" ? await cancel(request, body.sha256) : await deps.approvals.decide(request.params.id, {
      decision: body.decision,
      sha256: body.sha256,
      decidedBy: authorized(request, "approval", "decide").name,
      ...(body.note ? { note: body.note } : {}),
    });
    if (!outcome.ok) {
      const status = APPROVAL_ERROR_STATUS[outcome.error.kind];
      throw new AppError({ code: status === 404 ? "not_found" : "conflict", message: outcome.error.message });
    }
    return outcome.request;
  });
}
