import type { FastifyInstance } from "fastify";
import { AppError } from "@berth/protocol";
import type { Repositories } from "@berth/db";
import { validatePolicyRule } from "@berth/tools";
import { authorize } from "../../auth/authorize";
import { newId } from "../../auth/tokens";
import { requirePrincipal } from "../build-server";

/**
 * Operators' policy rules live in the database, never in a workspace an agent can write. A rule's
 * example commands are checked when it is saved; a shell rule without a prefix needs `matchAll: true`
 * (validatePolicyRule). `appliesTo` says whom it governs: agents (MCP and API callers), people, or everyone.
 */
export function registerPolicyRoutes(app: FastifyInstance, deps: { repos: Pick<Repositories, "policyRules">; onChange: () => void }): void {
  app.get("/api/policy-rules", async (request) => {
    authorize(requirePrincipal(request), "policyRule", "list");
    return { rules: await deps.repos.policyRules.list() };
  });

  app.post("/api/policy-rules", async (request, reply) => {
    const principal = requirePrincipal(request);
    authorize(principal, "policyRule", "create");
    const id = newId("rule");
    const validation = validatePolicyRule({ ...(request.body as object), id });
    if (!validation.ok) throw new AppError({ code: "bad_request", message: `Invalid policy rule: ${validation.errors.join("; ")}` });
    const rule = validation.rule;
    await deps.repos.policyRules.create({ ...rule, id }, principal.name);
    deps.onChange();
    return reply.status(201).send(rule);
  });

  app.delete<{ Params: { id: string } }>("/api/policy-rules/:id", async (request, reply) => {
    authorize(requirePrincipal(request), "policyRule", "delete");
    if (!(await deps.repos.policyRules.delete(request.params.id))) throw new AppError({ code: "not_found", message: `Policy rule not found: ${request.params.id}` });
    deps.onChange();
    return reply.status(204).send();
  });
}
