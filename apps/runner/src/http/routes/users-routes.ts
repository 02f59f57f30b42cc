import type { FastifyInstance } from "fastify";
import { z } from "zod";
import { AppError } from "@berth/protocol";
import type { Database } from "@berth/db";
import { ROLES, hashToken, newId, newToken } from "../../auth/tokens";
import { parse, requireRole } from "../validate";

const CreateUserSchema = z.strictObject({ name: z.string().trim().min(1, "must not be empty").max(100), role: z.enum(ROLES) });
const CreateTokenSchema = z.strictObject({ userId: z.string().min(1), name: z.string().max(100).optional() });

/** Users and API tokens (admin only). A token is shown once; only its hash is stored. */
export function registerUserRoutes(app: FastifyInstance, deps: { db: Database }): void {
  app.post("/api/users", async (request, reply) => {
    requireRole(request, "admin");
    const body = parse(CreateUserSchema, request.body);
    const user = await deps.db.user.create({ data: { id: newId("user"), name: body.name, role: body.role } });
    return reply.status(201).send({ id: user.id, name: user.name, role: user.role });
  });

  app.get("/api/users", async (request) => {
    requireRole(request, "admin");
    const users = await deps.db.user.findMany({ orderBy: { createdAt: "asc" } });
    return { users: users.map((u) => ({ id: u.id, name: u.name, role: u.role, createdAt: u.createdAt.toISOString() })) };
  });

  app.post("/api/tokens", async (request, reply) => {
    requireRole(request, "admin");
    const body = parse(CreateTokenSchema, request.body);
    const user = await deps.db.user.findUnique({ where: { id: body.userId } });
    if (!user) throw new AppError({ code: "not_found", message: `User not found: ${body.userId}` });
    const token = newToken();
    const row = await deps.db.apiToken.create({ data: { id: newId("tok"), userId: user.id, name: body.name ?? "", tokenHash: hashToken(token) } });
    return reply.status(201).send({ id: row.id, token });
  });

  // Never the token itself (only its hash is stored): what an admin needs to see and revoke it.
  app.get("/api/tokens", async (request) => {
    requireRole(request, "admin");
    const tokens = await deps.db.apiToken.findMany({ orderBy: { createdAt: "asc" }, include: { user: { select: { name: true } } } });
    return {
      tokens: tokens.map((t) => ({
        id: t.id,
        userId: t.userId,
        userName: t.user.name,
        name: t.name,
        createdAt: t.createdAt.toISOString(),
        lastUsedAt: t.lastUsedAt?.toISOString() ?? null,
        revokedAt: t.revokedAt?.toISOString() ?? null,
      })),
    };
  });
  app.delete<{ Params: { id: string } }>("/api/tokens/:id", async (request, reply) => {
    requireRole(request, "admin");
    const { count } = await deps.db.apiToken.updateMany({ where: { id: request.params.id, revokedAt: null }, data: { revokedAt: new Date() } });
    if (!count) throw new AppError({ code: "not_found", message: `Token not found: ${request.params.id}` });
    return reply.status(204).send();
  });
}
