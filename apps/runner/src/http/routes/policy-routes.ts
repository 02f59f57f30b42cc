import type { FastifyInstance } from "fastify";
import { AppError, type Decision, type PolicyRuleView, type PolicyTarget } from "@berth/protocol";
import type { Database } from "@berth/db";
import { validatePolicyRule } from "@berth/tools";
import { authorize } from "../../auth/authorize";
import { newId } from "../../auth/tokens";
import { requirePrincipal } from "../build-server";

/**
 * Operators' policy rules live in the database, never in a workspace an agent can write. A rule's
 * example commands are checked when it is saved; a shell rule without a prefix needs `matchAll: true`
 * (validatePolicyRule). `appliesTo` says whom it governs: agents (MCP and API callers), people, or everyone.
 */
export function registerPolicyRoutes(app: FastifyInstance, deps: { db: Database; onChange: () => void }): void {
  app.get("/api/policy-rules", async (request) => {
    authorize(requirePrincipal(request), "policyRule", "list");
    const rows = await deps.db.policyRule.findMany({ orderBy: { createdAt: "asc" } });
    return {
      // effect and appliesTo are written through validatePolicyRule only.
      rules: rows.map((r): PolicyRuleView => ({
        id: r.id,
        tool: r.tool,
        commandPrefix: r.commandPrefix,
        effect: r.effect as Decision,
        appliesTo: r.appliesTo as PolicyTarget,
        mustMatch: JSON.parse(r.mustMatchJson) as string[],
        mustNotMatch: JSON.parse(r.mustNotMatchJson) as string[],
        createdBy: r.createdBy,
        createdAt: r.createdAt.toISOString(),
      })),
    };
  });

  app.post("/api/policy-rules", async (request, reply) => {
    const principal = requirePrincipal(request);
    authorize(principal, "policyRule", "create");
    const id = newId("rule");
    const validation = validatePolicyRule({ ...(request.body as object), id });
    if (!validation.ok) throw new AppError({ code: "bad_request", message: `Invalid policy rule: ${validation.errors.join("; ")}` });
    const rule = validation.rule;
    await deps.db.policyRule.create({
      data: {
        id,
        tool: rule.tool,
        commandPrefix: rule.commandPrefix ?? null,
        effect: rule.effect,
        appliesTo: rule.appliesTo ?? "everyone",
        mustMatchJson: JSON.stringify(rule.mustMatch),
        mustNotMatchJson: JSON.stringify(rule.mustNotMatch),
        createdBy: principal.name,
      },
    });
    deps.onChange();
    return reply.status(201).send(rule);
  });

  app.delete<{ Params: { id: string } }>("/api/policy-rules/:id", async (request, reply) => {
    authorize(requirePrincipal(request), "policyRule", "delete");
    const { count } = await deps.db.policyRule.deleteMany({ where: { id: request.params.id } });
    if (!count) throw new AppError({ code: "not_found", message: `Policy rule not found: ${request.params.id}` });
    deps.onChange();
    return reply.status(204).send();
  });
}
