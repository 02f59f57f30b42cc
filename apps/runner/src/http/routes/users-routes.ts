import type { FastifyInstance } from "fastify";
import { AppError, CreateTokenBodySchema, CreateUserBodySchema, UpdateUserBodySchema, type Role, type UserView } from "@berth/protocol";
import type { Database } from "@berth/db";
import { hashToken, newId, newToken, type Principal } from "../../auth/tokens";
import type { CredentialRevocation } from "../../auth/credential-revocation";
import type { SessionService } from "../../sessions/session-service";
import { authorized } from "../authorized";
import { parse } from "../validate";

/** The user the admin token from BERTH_ADMIN_TOKEN or the data dir belongs to (auth/tokens.ts). */
const BUILT_IN_ADMIN_ID = "user_admin";

type UserRow = { id: string; name: string; role: string; createdAt: Date; disabledAt: Date | null };
// Roles are written through CreateUserBodySchema only.
const userView = (u: UserRow): UserView => ({ id: u.id, name: u.name, role: u.role as Role, createdAt: u.createdAt.toISOString(), disabled: u.disabledAt !== null });

/** Users and API tokens (admin only). A token is shown once; only its hash is stored. */
export function registerUserRoutes(app: FastifyInstance, deps: { db: Database; revocation: CredentialRevocation; sessions: SessionService }): void {
  /** A live user other than the caller and the built-in admin (whose token must keep working). */
  const otherUser = async (principal: Principal, id: string, verb: string) => {
    const user = await deps.db.user.findUnique({ where: { id } });
    if (!user || user.deletedAt) throw new AppError({ code: "not_found", message: `User not found: ${id}` });
    if (id === principal.userId) throw new AppError({ code: "conflict", message: `You cannot ${verb} yourself (${id}): another admin must` });
    if (id === BUILT_IN_ADMIN_ID) throw new AppError({ code: "conflict", message: `The built-in admin (${id}, BERTH_ADMIN_TOKEN) cannot be ${verb}d` });
    return user;
  };

  app.post("/api/users", async (request, reply) => {
    authorized(request, "user", "create");
    const body = parse(CreateUserBodySchema, request.body);
    const user = await deps.db.user.create({ data: { id: newId("user"), name: body.name, role: body.role } });
    return reply.status(201).send({ id: user.id, name: user.name, role: user.role });
  });

  app.get("/api/users", async (request) => {
    authorized(request, "user", "list");
    const users = await deps.db.user.findMany({ where: { deletedAt: null }, orderBy: { createdAt: "asc" } });
    return { users: users.map(userView) };
  });

  // Disabling refuses the user's tokens from now on and ends their open sockets; enabling lets the same
  // tokens work again (nothing was revoked).
  app.patch<{ Params: { id: string } }>("/api/users/:id", async (request) => {
    const principal = authorized(request, "user", "update");
    const body = parse(UpdateUserBodySchema, request.body);
    const user = await otherUser(principal, request.params.id, body.disabled ? "disable" : "enable");
    const updated = await deps.db.user.update({ where: { id: user.id }, data: { disabledAt: body.disabled ? (user.disabledAt ?? new Date()) : null } });
    if (body.disabled) deps.revocation.disconnectUser(user.id);
    return userView(updated);
  });

  // The row stays (marked deleted) so the runs and receipts they made keep their name; their sessions go
  // (containers and workspaces), their tokens are revoked and their sockets ended.
  app.delete<{ Params: { id: string } }>("/api/users/:id", async (request, reply) => {
    const principal = authorized(request, "user", "delete");
    const user = await otherUser(principal, request.params.id, "delete");
    const now = new Date();
    await deps.db.user.update({ where: { id: user.id }, data: { deletedAt: now, disabledAt: user.disabledAt ?? now } });
    await deps.db.apiToken.updateMany({ where: { userId: user.id, revokedAt: null }, data: { revokedAt: now } });
    deps.revocation.disconnectUser(user.id);
    const sessions = await deps.db.session.findMany({ where: { ownerId: user.id, status: { not: "deleted" } }, select: { id: true } });
    for (const session of sessions) await deps.sessions.remove(session.id, principal);
    return reply.status(204).send();
  });

  app.post("/api/tokens", async (request, reply) => {
    authorized(request, "token", "create");
    const body = parse(CreateTokenBodySchema, request.body);
    const user = await deps.db.user.findUnique({ where: { id: body.userId } });
    if (!user || user.deletedAt) throw new AppError({ code: "not_found", message: `User not found: ${body.userId}` });
    const token = newToken();
    const row = await deps.db.apiToken.create({ data: { id: newId("tok"), userId: user.id, name: body.name ?? "", tokenHash: hashToken(token) } });
    return reply.status(201).send({ id: row.id, token });
  });

  // Never the token itself (only its hash is stored): what an admin needs to see and revoke it.
  app.get("/api/tokens", async (request) => {
    authorized(request, "token", "list");
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
    authorized(request, "token", "revoke");
    const { count } = await deps.db.apiToken.updateMany({ where: { id: request.params.id, revokedAt: null }, data: { revokedAt: new Date() } });
    if (!count) throw new AppError({ code: "not_found", message: `Token not found: ${request.params.id}` });
    deps.revocation.disconnectCredential(request.params.id);
    return reply.status(204).send();
  });
}
