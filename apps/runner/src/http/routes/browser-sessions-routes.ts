import type { FastifyInstance } from "fastify";
import { AppError, MintBrowserSessionBodySchema, type MintedBrowserSession } from "@berth/protocol";
import type { BrowserSessions } from "../../auth/browser-sessions";
import { requirePrincipal } from "../build-server";
import { parse } from "../validate";

/**
 * Browser sign-ins (docs/api.md "Browser sessions"). The web app mints one with the token typed on its
 * login page and keeps the secret in its own HttpOnly SameSite=Strict cookie; a person lists and revokes
 * their own (an admin everyone's), and a revocation ends that browser's sockets at once.
 */
export function registerBrowserSessionRoutes(app: FastifyInstance, deps: { browserSessions: BrowserSessions }): void {
  app.post("/api/browser-sessions", async (request, reply) => {
    const principal = requirePrincipal(request);
    const body = parse(MintBrowserSessionBodySchema, request.body);
    const { session, secret } = await deps.browserSessions.mint(principal, body.userAgent);
    return reply.status(201).send({ ...session, secret, user: { userId: principal.userId, name: principal.name, role: principal.role } } satisfies MintedBrowserSession);
  });

  app.get("/api/browser-sessions", async (request) => ({ sessions: await deps.browserSessions.list(requirePrincipal(request)) }));

  // Sign-out: the session presenting the cookie ends itself.
  app.delete("/api/browser-sessions/current", async (request, reply) => {
    const principal = requirePrincipal(request);
    if (principal.credential !== "browser") throw new AppError({ code: "bad_request", message: "Not a browser session: sign-out needs the browser's own cookie" });
    await deps.browserSessions.revoke(principal.tokenId, principal);
    return reply.status(204).send();
  });

  app.delete<{ Params: { id: string } }>("/api/browser-sessions/:id", async (request) => deps.browserSessions.revoke(request.params.id, requirePrincipal(request)));
}
