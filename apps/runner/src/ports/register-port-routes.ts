import type http from "node:http";
import type { Duplex } from "node:stream";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { Repositories } from "@berth/db";
import { PEER_LINK_PATH } from "../cluster/peer-link";
import { SandboxError, type SandboxDriver } from "@berth/sandbox";
import { AppError, PortListResultSchema, PortMethod, PortNumberSchema, toApiError } from "@berth/protocol";
import { allows } from "../auth/authorize";
import { requirePrincipal } from "../http/build-server";
import type { BrowserSessions } from "../auth/browser-sessions";
import type { TokenAuthenticator } from "../auth/api-tokens";
import { createRequestAuthenticator } from "../auth/authenticate-request";
import type { Principal } from "../auth/tokens";
import { checkRequest, refusalBody, type HostAllowList } from "../http/request-guard";
import type { SessionService } from "../sessions/session-service";
import { HEAD_MAX_BYTES, requestHead, responseHead, splitHead } from "./http-head";
import { PortTunnel } from "./port-tunnel";
import { forwardTargetOf, type ForwardToOwner } from "../cluster/forward-to-owner";

/** `/sessions/<id>/ports/<port>` and anything below it: the public-route list lets these through to answer 404 themselves. */
export const PORT_PATH = /^\/sessions\/([^/?]+)\/ports\/([^/?]*)(\/[^?]*)?(\?.*)?$/;

export interface PortRouteDeps {
  repos: Pick<Repositories, "users">;
  driver: SandboxDriver;
  sessions: SessionService;
  browserSessions?: BrowserSessions;
  apiTokens: TokenAuthenticator;
  hosts: HostAllowList;
  /** Several runners: an upgrade for another runner's session goes to it (HTTP requests do before Fastify: ForwardToOwner.early). */
  forward?: Pick<ForwardToOwner, "upgrade">;
}

type Problem = { status: number; code: string; message: string };

class PortProblem extends Error {
  constructor(readonly problem: Problem) {
    super(problem.message);
  }
}

/**
 * Port previews (docs/api.md "Ports"): an HTTP request or WebSocket upgrade under
 * /sessions/<id>/ports/<port>/ reaches 127.0.0.1:<port> inside the session's container through the agent.
 * Only the session's owner, signed in; anyone else and an anonymous request get 404, as for a session
 * that does not exist.
 */
export function registerPortRoutes(app: FastifyInstance, deps: PortRouteDeps): void {
  const authenticate = createRequestAuthenticator(deps.apiTokens, deps.browserSessions);

  async function resolve(principal: Principal | null, url: string) {
    const match = PORT_PATH.exec(url);
    if (!match) throw new PortProblem({ status: 404, code: "not_found", message: `No route ${url.slice(0, 200)}` });
    const [, sessionId = "", portText = "", rest, query = ""] = match;
    const notFound = new PortProblem({
      status: 404,
      code: "not_found",
      message: `Session not found: ${sessionId.slice(0, 100)}`,
    });
    if (!principal) throw notFound;
    const session = await deps.sessions.get(sessionId, principal, (target) => {
      if (!allows(principal, "port", "use", target)) throw notFound;
    });
    const port = PortNumberSchema.safeParse(/^\d{1,5}$/.test(portText) ? Number(portText) : Number.NaN);
    if (!port.success)
      throw new PortProblem({
        status: 400,
        code: "bad_request",
        message: `port: must be a whole number from 1 to 65535, got ${JSON.stringify(portText.slice(0, 20))}`,
      });
    const prefix = `/sessions/${session.id}/ports/${port.data}`;
    return {
      sessionId: session.id,
      port: port.data,
      prefix,
      path: `${rest ?? "/"}${query}`,
      redirect: rest === undefined ? `${prefix}/${query}` : null,
    };
  }

  async function openTunnel(sessionId: string, port: number): Promise<PortTunnel> {
    try {
      return await PortTunnel.open(deps.driver, sessionId, port);
    } catch (error) {
      if (SandboxError.isSandboxError(error) && error.reason === "rpc") {
        const why = error.message.replace(/^.*?: (?=nothing answers)/, "");
        throw new PortProblem({
          status: 502,
          code: "bad_gateway",
          message: `Nothing listens on port ${port} in session ${sessionId}: ${why}`,
        });
      }
      throw error;
    }
  }

  /** Reads the server's response head, rewritten; the bytes after it come along. */
  async function readResponseHead(tunnel: PortTunnel, prefix: string): Promise<Buffer> {
    let bytes = Buffer.alloc(0);
    for (;;) {
      const split = splitHead(bytes);
      if (split) return Buffer.concat([responseHead(split.head, prefix), split.rest]);
      if (bytes.length > HEAD_MAX_BYTES)
        throw new PortProblem({
          status: 502,
          code: "bad_gateway",
          message: `The server on port ${tunnel.port} sent a response head over ${HEAD_MAX_BYTES} bytes`,
        });
      const chunk = await tunnel.read();
      if (!chunk)
        throw new PortProblem({
          status: 502,
          code: "bad_gateway",
          message: `The server on port ${tunnel.port} closed the connection without an HTTP response`,
        });
      bytes = Buffer.concat([bytes, chunk]);
    }
  }

  async function serve(request: FastifyRequest, reply: FastifyReply) {
    try {
      const target = await resolve(request.principal, request.url);
      if (target.redirect) return reply.redirect(target.redirect, 308);
      const body = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
      const tunnel = await openTunnel(target.sessionId, target.port);
      let first: Buffer;
      try {
        await tunnel.write(
          requestHead({
            method: request.method,
            path: target.path,
            rawHeaders: request.raw.rawHeaders,
            port: target.port,
            bodyBytes: body.length,
            upgrade: false,
          }),
        );
        if (body.length > 0) await tunnel.write(body);
        first = await readResponseHead(tunnel, target.prefix);
      } catch (error) {
        await tunnel.close();
        throw error;
      }
      // The response goes out as the server wrote it (status line, headers, body), ending with its stream.
      reply.hijack();
      await tunnel.pumpTo(request.raw.socket, first);
      return reply;
    } catch (error) {
      if (error instanceof PortProblem)
        return reply
          .status(error.problem.status)
          .send({ error: { code: error.problem.code, message: error.problem.message } });
      throw error;
    }
  }

  // What listens in the container, for the IDE's Ports list.
  app.get<{ Params: { id: string } }>("/api/sessions/:id/ports", async (request) => {
    const principal = requirePrincipal(request);
    const notFound = new AppError({
      code: "not_found",
      message: `Session not found: ${request.params.id.slice(0, 100)}`,
    });
    const session = await deps.sessions.get(request.params.id, principal, (target) => {
      if (!allows(principal, "port", "use", target)) throw notFound;
    });
    return deps.driver.request(session.id, PortMethod.List, {}, PortListResultSchema);
  });

  // Bodies go to the server inside as bytes, whatever their type (this scope only).
  void app.register(async (scoped) => {
    const app = scoped; // the routes-coverage test finds routes by `app.<method>(`
    app.removeAllContentTypeParsers();
    app.addContentTypeParser("*", { parseAs: "buffer" }, (_request, body, done) => done(null, body));
    app.all("/sessions/:id/ports/:port", serve);
    app.all("/sessions/:id/ports/:port/*", serve);
  });

  app.server.on("upgrade", (req: http.IncomingMessage, socket: Duplex, head: Buffer) => {
    if (!PORT_PATH.test(req.url ?? "")) {
      // socket.io's own; any other path is served by nobody (socket.io is told not to sweep them: socket-server.ts).
      // A peer runner's link (cluster/peer-link.ts) is the cluster's.
      if (!(req.url ?? "").startsWith("/socket.io/") && req.url !== PEER_LINK_PATH) socket.destroy();
      return;
    }
    void upgrade(req, socket, head);
  });

  async function upgrade(req: http.IncomingMessage, socket: Duplex, head: Buffer): Promise<void> {
    socket.on("error", () => socket.destroy());
    const answer = (problem: Problem) => {
      const body = JSON.stringify(
        problem.status === 421 || problem.status === 403
          ? refusalBody(req.url, problem as never)
          : { error: { code: problem.code, message: problem.message } },
      );
      socket.end(
        `HTTP/1.1 ${problem.status} ${problem.code}\r\ncontent-type: application/json; charset=utf-8\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
      );
    };
    const refusal = checkRequest({ method: "GET", headers: req.headers }, deps.hosts);
    if (refusal) return answer(refusal);
    try {
      const { principal } = await authenticate({
        authorization: req.headers.authorization,
        cookie: req.headers.cookie,
      });
      const forwarded = principal ? forwardTargetOf("GET", req.url ?? "") : null;
      if (forwarded && (await deps.forward?.upgrade(req, socket, head, forwarded))) return;
      const target = await resolve(principal, req.url ?? "");
      const tunnel = await openTunnel(target.sessionId, target.port);
      try {
        await tunnel.write(
          requestHead({
            method: req.method ?? "GET",
            path: target.path,
            rawHeaders: req.rawHeaders,
            port: target.port,
            bodyBytes: 0,
            upgrade: true,
          }),
        );
        if (head.length > 0) await tunnel.write(head);
        const first = await readResponseHead(tunnel, target.prefix);
        // After the handshake, raw bytes both ways until either side closes.
        tunnel.pumpFrom(socket);
        await tunnel.pumpTo(socket, first);
      } catch (error) {
        await tunnel.close();
        throw error;
      }
    } catch (error) {
      if (error instanceof PortProblem) return answer(error.problem);
      if (AppError.isInstance(error)) {
        const { status, body } = toApiError(error);
        return answer({ status, code: body.error.code, message: body.error.message });
      }
      if (!socket.destroyed)
        answer({
          status: 502,
          code: "bad_gateway",
          message: `Port preview failed: ${error instanceof Error ? error.message : String(error)}`,
        });
    }
  }
}
