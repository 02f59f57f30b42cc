import type { FastifyInstance } from "fastify";
import { AppError, SkillBodySchema, SkillUpdateBodySchema, type SkillView } from "@berth/protocol";
import type { Repositories } from "@berth/db";
import { authorize } from "../../auth/authorize";
import { newId } from "../../auth/tokens";
import { requirePrincipal } from "../build-server";
import { parse } from "../validate";
import { skillContentHash } from "../../skills/skill-content-hash";

/** The content hash covers everything an agent reads of the skill, and its activation (skill-content-hash.ts). */
const contentHash = skillContentHash;

// Changed outside the API since its hash was recorded: not activatable until an operator accepts it.
const view = (skill: SkillView): SkillView => ({ ...skill, drifted: contentHash(skill) !== skill.contentHash });

export function registerSkillRoutes(
  app: FastifyInstance,
  // onChange: the catalog mounted read-only in every sandbox (SkillsMount) follows each change before the reply.
  deps: { repos: Pick<Repositories, "skills">; onChange: () => Promise<void> },
): void {
  const find = async (name: string) => {
    const skill = await deps.repos.skills.get(name);
    if (!skill) throw new AppError({ code: "not_found", message: `Skill not found: ${name}` });
    return skill;
  };

  app.get("/api/skills", async (request) => {
    authorize(requirePrincipal(request), "skill", "list");
    return { skills: (await deps.repos.skills.list()).map(view) };
  });

  app.post("/api/skills", async (request, reply) => {
    const principal = requirePrincipal(request);
    authorize(principal, "skill", "create");
    const body = parse(SkillBodySchema, request.body);
    if (await deps.repos.skills.get(body.name)) throw new AppError({ code: "conflict", message: `Skill already exists: ${body.name}` });
    const allowedTools = body.allowedTools ?? [];
    const activation = body.activation ?? "model";
    const skill = await deps.repos.skills.create({ id: newId("skill"), name: body.name, description: body.description, body: body.body, allowedTools, contentHash: contentHash({ ...body, allowedTools, activation }), ownerId: principal.userId, activation });
    await deps.onChange();
    return reply.status(201).send(view(skill));
  });

  app.get<{ Params: { name: string } }>("/api/skills/:name", async (request) => {
    authorize(requirePrincipal(request), "skill", "read");
    return view(await find(request.params.name));
  });

  app.put<{ Params: { name: string } }>("/api/skills/:name", async (request) => {
    const current = await find(request.params.name);
    authorize(requirePrincipal(request), "skill", "update", { id: current.name, ownerId: current.ownerId });
    const body = parse(SkillUpdateBodySchema, request.body);
    const allowedTools = body.allowedTools ?? current.allowedTools;
    const activation = body.activation ?? current.activation;
    const hash = contentHash({ name: current.name, description: body.description, body: body.body, allowedTools, activation });
    if (hash === current.contentHash) return view(current);
    const updated = await deps.repos.skills.update(current.name, { description: body.description, body: body.body, allowedTools, contentHash: hash, version: current.version + 1, activation });
    await deps.onChange();
    return view(updated);
  });

  app.delete<{ Params: { name: string } }>("/api/skills/:name", async (request, reply) => {
    const current = await find(request.params.name);
    authorize(requirePrincipal(request), "skill", "delete", { id: current.name, ownerId: current.ownerId });
    await deps.repos.skills.delete(request.params.name);
    await deps.onChange();
    return reply.status(204).send();
  });
}
