import http from "node:http";
import Fastify, { LogController, type FastifyInstance, type FastifyReply, type FastifyRequest } from "fastify";
import { AppError, toApiError } from "@berth/protocol";
import type { Repositories } from "@berth/db";
import type { Principal } from "../auth/tokens";
import type { BrowserSessions } from "../auth/browser-sessions";
import type { TokenAuthenticator } from "../auth/api-tokens";
import { authorize } from "../auth/authorize";
import { createRequestAuthenticator, type Authentication } from "../auth/authenticate-request";
import { requestGuardHook, type HostAllowList } from "./request-guard";
import { loneSurrogateIssue, mayEscapeSurrogate, unstorableParamIssue } from "./validate";
import { linkedToolCallAnswerer, toolCallFastPath, type AnswerLinkedToolCall, type ToolCallEdge } from "./tool-call-fast-path";
import type { ToolService } from "../tools/tool-service";

declare module "fastify" {
  interface FastifyRequest {
    principal: Principal | null;
  }
}

/** One engine's answer; `hosts` lists each engine where the runner drives several (BERTH_DOCKER_HOSTS). */
export type DockerHealth = () => Promise<{
  ok: boolean;
  version?: string;
  error?: string;
  hosts?: { name: string; ok: boolean; version?: string; error?: string; sessions: number; maxSessions: number }[];
}>;

export type ServerDeps = {
  repos: Pick<Repositories, "users" | "ping">;
  dockerHealth: DockerHealth;
  logLevel: string;
  /** Browser sign-ins: their cookie is the one credential besides a bearer token (auth/authenticate-request.ts). */
  browserSessions?: BrowserSessions;
  /** API tokens, resolved once and then from memory (auth/api-tokens.ts). */
  apiTokens: TokenAuthenticator;
  /** Host and Origin headers answered (request-guard.ts); everything else is refused before auth. */
  hosts: HostAllowList;
  /** Largest accepted JSON body: write_file takes up to 8 MiB of content, plus JSON escaping. */
  bodyLimitBytes?: number;
  /** Several runners: the Redis connection, shown by /healthz (undefined for one runner). */
  redisHealth?: () => { ok: boolean; status: "up" | "down" } | undefined;
  /**
   * Several runners: on the raw request before Fastify routes it, a request for another runner's session is proxied
   * there or refused (cluster/forward-to-owner.ts); `next` hands the rest to Fastify.
   */
  forwardEarly?: (req: http.IncomingMessage, res: http.ServerResponse, next: () => void) => void;
  /** The tool service: `POST /api/sessions/:id/tools/:tool` then takes the raw fast path (tool-call-fast-path.ts). */
  tools?: Pick<ToolService, "call">;
  /**
   * Several runners: handed, once, what answers a tool call another runner sent over a peer link (cluster/peer-link.ts)
   * as the fast path answers it here (needs `tools`).
   */
  linkedToolCalls?: (answer: AnswerLinkedToolCall) => void;
};

/** A JSON body's text → its value, or the error the route answers (a Fastify content-type parser's contract). */
export type JsonBodyParser = (request: unknown, text: string, done: (error: Error | null, value?: unknown) => void) => void;

/**
 * Many clients send `content-type: application/json` on a DELETE or POST with no body; an empty body means "no
 * arguments", not a 400. Non-empty bodies keep Fastify's parser (prototype-poisoning checks).
 */
function jsonBodyParser(parseJson: ReturnType<FastifyInstance["getDefaultJsonParser"]>): JsonBodyParser {
  return (request, text, done) => {
    if (text === "") return done(null, undefined);
    void parseJson(request as FastifyRequest, text, (error: Error | null, value?: unknown) => {
      if (error) return done(error, undefined);
      // JSON may spell a lone surrogate (\ud800) that no database column can store: a 400 naming the field. Only
      // an escape can spell one (decoded UTF-8 holds none), so a body without such an escape needs no walk.
      const issue = mayEscapeSurrogate(text) ? loneSurrogateIssue(value) : null;
      if (issue) return done(new AppError({ code: "bad_request", message: `Invalid body: ${issue}` }), undefined);
      done(null, value);
    });
  };
}

/** What every REST error is answered with (the error handler, and the tool call's fast path). */
export function errorAnswer(error: unknown): { status: number; body: unknown } {
  const fastifyError = error as { statusCode?: number; code?: string; message: string };
  if (!AppError.isInstance(error) && fastifyError.statusCode && fastifyError.statusCode < 500) {
    // Fastify's own client errors (bad JSON, body too large, unsupported content type) keep their
    // status with our error shape.
    const code = fastifyError.statusCode === 413 ? "payload_too_large" : fastifyError.statusCode === 404 ? "not_found" : "bad_request";
    return { status: fastifyError.statusCode, body: { error: { code, message: fastifyError.message } } };
  }
  return toApiError(error);
}

/** Routes that answer without a token (api.md). */
const PUBLIC_ROUTES = [/^\/healthz$/, /^\/api\/shared\//, /^\/api\/receipts\/public-key$/, /^\/api\/receipts\/keys$/, /^\/sessions\/[^/]+\/ports(\/|$)/]; // ports answer 404 themselves (ports/register-port-routes.ts)

export function requirePrincipal(request: FastifyRequest): Principal {
  if (!request.principal) throw new AppError({ code: "unauthorized", message: "Missing or invalid bearer token" });
  return request.principal;
}

/** The largest JSON body a runner takes by default: write_file's 8 MiB of content, plus JSON escaping. */
export const DEFAULT_BODY_LIMIT = 12 * 1024 * 1024;

export function buildServer(deps: ServerDeps): FastifyInstance {
  const bodyLimit = deps.bodyLimitBytes ?? DEFAULT_BODY_LIMIT;
  const app = Fastify({
    logger: { level: deps.logLevel, redact: ["req.headers.authorization", "req.headers.cookie"] },
    // One line per request is noise for a developer tool; errors are still logged.
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit,
    // A URL that does not decode (bad percent-encoding) gets our error shape, not Fastify's.
    frameworkErrors: (error, _request, reply) => {
      void (reply as unknown as FastifyReply).status(400).send({ error: { code: "bad_request", message: `Bad request URL: ${error.message}` } });
    },
    // Refused by Node's HTTP parser before any route (a URL or header block over its limit, a malformed request):
    // the same error shape as every other reply (found by the chaos fuzz).
    clientErrorHandler: (error, socket) => {
      const tooLarge = (error as NodeJS.ErrnoException).code === "HPE_HEADER_OVERFLOW";
      const body = JSON.stringify({
        error: tooLarge
          ? { code: "payload_too_large", message: `request line and headers: over the limit of ${http.maxHeaderSize} bytes` }
          : { code: "bad_request", message: `malformed HTTP request: ${(error as NodeJS.ErrnoException).code ?? error.message}` },
      });
      if (!socket.writable) return void socket.destroy(error);
      const status = tooLarge ? "431 Request Header Fields Too Large" : "400 Bad Request";
      socket.end(`HTTP/1.1 ${status}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
    },
  });
  app.decorateRequest("principal", null);

  const parseJsonBody = jsonBodyParser(app.getDefaultJsonParser("error", "error"));
  app.removeContentTypeParser("application/json");
  app.addContentTypeParser("application/json", { parseAs: "string" }, (request, body, done) => parseJsonBody(request, body.toString(), done));

  app.addHook("onRequest", requestGuardHook(deps.hosts));
  // Route parameters and the query reach database lookups as text: refuse what a database cannot store (a 400).
  // Callback-style hooks (here and below): every request passes them, and an async hook costs a promise and a
  // microtask hop each even when nothing is awaited.
  app.addHook("preValidation", (request, _reply, done) => {
    const issue = unstorableParamIssue(request.params) ?? unstorableParamIssue(request.query);
    done(issue ? new AppError({ code: "bad_request", message: `Invalid request: ${issue}` }) : undefined);
  });

  const authenticateRequest = createRequestAuthenticator(deps.apiTokens, deps.browserSessions);
  app.addHook("onRequest", (request, _reply, done) => {
    const admitted = ({ principal, presented }: Authentication) => {
      request.principal = principal;
      const url = request.url.split("?")[0] ?? "";
      if (request.principal || PUBLIC_ROUTES.some((route) => route.test(url))) return done();
      done(new AppError({ code: "unauthorized", message: presented ? "Invalid, expired or revoked credential" : "Missing bearer token (Authorization: Bearer <token>)" }));
    };
    // A credential resolved before answers from memory in this turn; only a first sight waits for its lookup.
    const known = authenticateRequest.fromMemory(request.headers);
    if (known) return admitted(known);
    authenticateRequest(request.headers).then(admitted, done);
  });
  // Before Fastify's routing, hooks and reply objects: a forwarded call costs this runner only the proxying, and a tool
  // call this runner answers takes the raw fast path (tool-call-fast-path.ts), which hands Fastify what it is not sure of.
  const toFastify = app.server.listeners("request")[0] as ((req: http.IncomingMessage, res: http.ServerResponse) => void) | undefined;
  if (!toFastify) throw new Error("buildServer: Fastify's request listener is not on its server");
  let closing = false;
  app.addHook("preClose", (done) => {
    closing = true;
    done();
  });
  const edge: ToolCallEdge = { hosts: deps.hosts, authenticate: authenticateRequest, bodyLimit, parseJsonBody, errorAnswer, log: app.log, closing: () => closing };
  const routed = deps.tools ? toolCallFastPath(edge, deps.tools, toFastify) : toFastify;
  if (deps.tools && deps.linkedToolCalls) deps.linkedToolCalls(linkedToolCallAnswerer(edge, deps.tools));
  if (deps.forwardEarly || routed !== toFastify) {
    const forwardEarly = deps.forwardEarly;
    app.server
      .removeAllListeners("request")
      .on("request", forwardEarly ? (req: http.IncomingMessage, res: http.ServerResponse) => forwardEarly(req, res, () => routed(req, res)) : routed);
  }

  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split("?")[0] ?? "";
    return reply.status(404).send({ error: { code: "not_found", message: `No route ${request.method} ${path.slice(0, 200)}` } });
  });

  app.setErrorHandler((error, request, reply) => {
    const { status, body } = errorAnswer(error);
    if (status >= 500) request.log.error({ err: error }, "request failed");
    return reply.status(status).send(body);
  });

  app.get("/healthz", async (_request, reply) => {
    const [docker, db] = await Promise.all([deps.dockerHealth(), deps.repos.ping()]);
    const redis = deps.redisHealth?.();
    const ok = docker.ok && db.ok && (redis?.ok ?? true);
    return reply.status(ok ? 200 : 503).send({ ok, docker, db, ...(redis ? { redis } : {}) });
  });

  app.get("/api/me", async (request) => {
    const principal = requirePrincipal(request);
    authorize(principal, "user", "me");
    return principal;
  });

  return app;
}
