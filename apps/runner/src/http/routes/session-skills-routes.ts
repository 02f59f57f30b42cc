import type { FastifyInstance } from "fastify";
import { AppError } from "@berth/protocol";
import { isRefused } from "@berth/tools";
import { authorize } from "../../auth/authorize";
import type { Principal } from "../../auth/tokens";
import type { SessionService } from "../../sessions/session-service";
import type { SkillsService } from "../../skills/skills-service";
import { requirePrincipal } from "../build-server";

/** A person at the keyboard in their own session (the IDE's sign-in), or an operator or admin anywhere. */
function mayActivateManual(principal: Principal, ownerId: string): boolean {
  return (
    principal.role === "operator" ||
    principal.role === "admin" ||
    (principal.credential === "browser" && principal.userId === ownerId)
  );
}

/**
 * Skills in a session (docs/api.md, Skills): which are active, turning one on or off, and an operator's
 * acceptance of a drifted skill. An agent does the same through `context {scope: "skills", name, activate}`.
 */
export function registerSessionSkillRoutes(
  app: FastifyInstance,
  deps: { sessions: SessionService; skills: SkillsService; onChange: () => Promise<void> },
): void {
  app.get<{ Params: { id: string } }>("/api/sessions/:id/skills", async (request) => {
    const session = await deps.sessions.get(request.params.id, requirePrincipal(request));
    return { skills: await deps.skills.list(session.id) };
  });

  const setActive = async (principal: Principal, sessionId: string, name: string, on: boolean) => {
    const session = await deps.sessions.get(sessionId, principal, (target) =>
      authorize(principal, "session", "skills", target),
    );
    const changed = await deps.skills.setActive(session.id, name, on, {
      userId: principal.userId,
      mayActivateManual: mayActivateManual(principal, session.ownerId),
    });
    if (isRefused(changed)) {
      const code =
        changed.code === "not_found" ? "not_found" : changed.code === "skill_drifted" ? "conflict" : "forbidden";
      throw new AppError({ code, message: changed.refused });
    }
    return changed;
  };

  app.post<{ Params: { id: string; name: string } }>("/api/sessions/:id/skills/:name", async (request) =>
    setActive(requirePrincipal(request), request.params.id, request.params.name, true),
  );

  app.delete<{ Params: { id: string; name: string } }>("/api/sessions/:id/skills/:name", async (request) =>
    setActive(requirePrincipal(request), request.params.id, request.params.name, false),
  );

  app.post<{ Params: { name: string } }>("/api/skills/:name/accept", async (request) => {
    authorize(requirePrincipal(request), "skill", "accept");
    const accepted = await deps.skills.accept(request.params.name);
    if (!accepted) throw new AppError({ code: "not_found", message: `Skill not found: ${request.params.name}` });
    // Accepted, it is mounted in the sandboxes again (a drifted skill is not).
    await deps.onChange();
    return accepted;
  });
}
