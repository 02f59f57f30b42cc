import crypto from "node:crypto";
import type { FastifyInstance } from "fastify";
import { AppError, SkillBodySchema, SkillUpdateBodySchema, type SkillView } from "@berth/protocol";
import type { Database } from "@berth/db";
import { authorize } from "../../auth/authorize";
import { newId } from "../../auth/tokens";
import { requirePrincipal } from "../build-server";
import { parse } from "../validate";

type SkillRow = Awaited<ReturnType<Database["skill"]["findUniqueOrThrow"]>>;

function view(row: SkillRow): SkillView {
  return {
    name: row.name,
    description: row.description,
    body: row.body,
    allowedTools: JSON.parse(row.allowedTools) as string[],
    contentHash: row.contentHash,
    version: row.version,
    ownerId: row.ownerId,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

/** The content hash covers everything an agent reads of the skill. */
function contentHash(skill: { name: string; description: string; body: string; allowedTools: string[] }): string {
  return crypto.createHash("sha256").update(JSON.stringify([skill.name, skill.description, skill.body, skill.allowedTools])).digest("hex");
}

export function registerSkillRoutes(app: FastifyInstance, deps: { db: Database }): void {
  const find = async (name: string) => {
    const row = await deps.db.skill.findUnique({ where: { name } });
    if (!row) throw new AppError({ code: "not_found", message: `Skill not found: ${name}` });
    return row;
  };

  app.get("/api/skills", async (request) => {
    authorize(requirePrincipal(request), "skill", "list");
    const rows = await deps.db.skill.findMany({ orderBy: { name: "asc" } });
    return { skills: rows.map(view) };
  });

  app.post("/api/skills", async (request, reply) => {
    const principal = requirePrincipal(request);
    authorize(principal, "skill", "create");
    const body = parse(SkillBodySchema, request.body);
    if (await deps.db.skill.findUnique({ where: { name: body.name } })) throw new AppError({ code: "conflict", message: `Skill already exists: ${body.name}` });
    const allowedTools = body.allowedTools ?? [];
    const row = await deps.db.skill.create({
      data: { id: newId("skill"), name: body.name, description: body.description, body: body.body, allowedTools: JSON.stringify(allowedTools), contentHash: contentHash({ ...body, allowedTools }), ownerId: principal.userId },
    });
    return reply.status(201).send(view(row));
  });

  app.get<{ Params: { name: string } }>("/api/skills/:name", async (request) => {
    authorize(requirePrincipal(request), "skill", "read");
    return view(await find(request.params.name));
  });

  app.put<{ Params: { name: string } }>("/api/skills/:name", async (request) => {
    const current = await find(request.params.name);
    authorize(requirePrincipal(request), "skill", "update", { id: current.name, ownerId: current.ownerId });
    const body = parse(SkillUpdateBodySchema, request.body);
    const allowedTools = body.allowedTools ?? (JSON.parse(current.allowedTools) as string[]);
    const hash = contentHash({ name: current.name, description: body.description, body: body.body, allowedTools });
    if (hash === current.contentHash) return view(current);
    const row = await deps.db.skill.update({
      where: { name: current.name },
      data: { description: body.description, body: body.body, allowedTools: JSON.stringify(allowedTools), contentHash: hash, version: current.version + 1 },
    });
    return view(row);
  });

  app.delete<{ Params: { name: string } }>("/api/skills/:name", async (request, reply) => {
    const current = await find(request.params.name);
    authorize(requirePrincipal(request), "skill", "delete", { id: current.name, ownerId: current.ownerId });
    await deps.db.skill.delete({ where: { name: request.params.name } });
    return reply.status(204).send();
  });
}
