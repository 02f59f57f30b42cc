import type { FastifyInstance } from "fastify";
import { AppError, CreateTokenBodySchema, CreateUserBodySchema, UpdateUserBodySchema, type UserView } from "@berth/protocol";
import type { Repositories, UserRecord } from "@berth/db";
import { hashToken, newId, newToken, type Principal } from "../../auth/tokens";
import type { CredentialRevocation } from "../../auth/credential-revocation";
import type { SessionService } from "../../sessions/session-service";
import { authorized } from "../authorized";
import { parse } from "../validate";

/** The user the admin token from BERTH_ADMIN_TOKEN or the data dir belongs to (auth/tokens.ts). */
const BUILT_IN_ADMIN_ID = "user_admin";

const userView = (u: UserRecord): UserView => ({ id: u.id, name: u.name, role: u.role, createdAt: u.createdAt, disabled: u.disabledAt !== null });

/** Users and API tokens (admin only). A token is shown once; only its hash is stored. */
export function registerUserRoutes(app: FastifyInstance, deps: { repos: Pick<Repositories, "users" | "sessions">; revocation: CredentialRevocation; sessions: SessionService }): void {
  /** A live user other than the caller and the built-in admin (whose token must keep working). */
  const otherUser = async (principal: Principal, id: string, verb: string) => {
    const user = await deps.repos.users.get(id);
    if (!user || user.deletedAt) throw new AppError({ code: "not_found", message: `User not found: ${id}` });
    if (id === principal.userId) throw new AppError({ code: "conflict", message: `You cannot ${verb} yourself (${id}): another admin must` });
    if (id === BUILT_IN_ADMIN_ID) throw new AppError({ code: "conflict", message: `The built-in admin (${id}, BERTH_ADMIN_TOKEN) cannot be ${verb}d` });
    return user;
  };

  app.post("/api/users", async (request, reply) => {
    authorized(request, "user", "create");
    const body = parse(CreateUserBodySchema, request.body);
    const user = await deps.repos.users.create({ id: newId("user"), name: body.name, role: body.role });
    return reply.status(201).send({ id: user.id, name: user.name, role: user.role });
  });

  app.get("/api/users", async (request) => {
    authorized(request, "user", "list");
    const users = await deps.repos.users.listLive();
    return { users: users.map(userView) };
  });

  // Disabling refuses the user's tokens from now on and ends their open sockets; enabling lets the same
  // tokens work again (nothing was revoked).
  app.patch<{ Params: { id: string } }>("/api/users/:id", async (request) => {
    const principal = authorized(request, "user", "update");
    const body = parse(UpdateUserBodySchema, request.body);
    const user = await otherUser(principal, request.params.id, body.disabled ? "disable" : "enable");
    const updated = await deps.repos.users.setDisabled(user, body.disabled);
    if (body.disabled) {
      deps.revocation.disconnectUser(user.id);
      await deps.revocation.sent();
    }
    return userView(updated);
  });

  // The row stays (marked deleted) so the runs and receipts they made keep their name; their sessions go
  // (containers and workspaces), their tokens are revoked and their sockets ended.
  app.delete<{ Params: { id: string } }>("/api/users/:id", async (request, reply) => {
    const principal = authorized(request, "user", "delete");
    const user = await otherUser(principal, request.params.id, "delete");
    await deps.repos.users.softDelete(user);
    deps.revocation.disconnectUser(user.id);
    await deps.revocation.sent();
    for (const sessionId of await deps.repos.sessions.liveIdsOwnedBy(user.id)) await deps.sessions.remove(sessionId, principal);
    return reply.status(204).send();
  });

  app.post("/api/tokens", async (request, reply) => {
    authorized(request, "token", "create");
    const body = parse(CreateTokenBodySchema, request.body);
    const user = await deps.repos.users.get(body.userId);
    if (!user || user.deletedAt) throw new AppError({ code: "not_found", message: `User not found: ${body.userId}` });
    const token = newToken();
    const id = newId("tok");
    await deps.repos.users.createToken({ id, userId: user.id, name: body.name ?? "", tokenHash: hashToken(token) });
    return reply.status(201).send({ id, token });
  });

  // Never the token itself (only its hash is stored): what an admin needs to see and revoke it.
  app.get("/api/tokens", async (request) => {
    authorized(request, "token", "list");
    return { tokens: await deps.repos.users.listTokens() };
  });
  app.delete<{ Params: { id: string } }>("/api/tokens/:id", async (request, reply) => {
    authorized(request, "token", "revoke");
    if (!(await deps.repos.users.revokeToken(request.params.id))) throw new AppError({ code: "not_found", message: `Token not found: ${request.params.id}` });
    deps.revocation.disconnectCredential(request.params.id);
    await deps.revocation.sent();
    return reply.status(204).send();
  });
}
