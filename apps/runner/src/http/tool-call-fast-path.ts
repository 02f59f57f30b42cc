import type http from "node:http";
import { errorCodes, type FastifyBaseLogger } from "fastify";
import type { RequestAuthenticator } from "../auth/authenticate-request";
import type { Principal } from "../auth/tokens";
import type { ToolService } from "../tools/tool-service";
import { answerToolCall } from "./answer-tool-call";
import { checkRequest, type HostAllowList } from "./request-guard";

/** What the fast path shares with the Fastify server it stands in front of (build-server.ts builds it). */
export interface ToolCallEdge {
  hosts: HostAllowList;
  authenticate: RequestAuthenticator;
  bodyLimit: number;
  /** The server's own `application/json` parser (empty body, prototype poisoning, lone surrogates). */
  parseJsonBody: (request: unknown, text: string, done: (error: Error | null, value?: unknown) => void) => void;
  /** The server's error handler as a function: an error → its status and body. */
  errorAnswer: (error: unknown) => { status: number; body: unknown };
  log: FastifyBaseLogger;
  /** True once the server is closing: Fastify then answers 503 itself. */
  closing: () => boolean;
}

type Listener = (req: http.IncomingMessage, res: http.ServerResponse) => void;

/**
 * Ids and tool names the route's parameters take as they are: no percent-escapes to decode, no NUL or surrogate
 * for the parameter check to refuse, under Fastify's `maxParamLength` (100), no query string, no trailing slash.
 */
const TOOL_CALL_URL = /^\/api\/sessions\/([A-Za-z0-9_-]{1,100})\/tools\/([A-Za-z0-9_.-]{1,100})$/;
/** The spellings Fastify hands to the `application/json` parser without a second look (clients send these). */
const JSON_CONTENT_TYPES = new Set(["application/json", "application/json; charset=utf-8"]);
const DECIMAL = /^[1-9][0-9]{0,9}$/;

/**
 * `POST /api/sessions/:id/tools/:tool` on the raw request, before Fastify routes it: the call that every script and
 * agent makes over HTTP skips Fastify's router, request and reply objects, hook runners, content-type machinery and
 * serializer (docs/benchmarks.md, "The hot path again", session 12).
 *
 * It answers only a request it is sure of and does exactly what the route does for it: the same Host/Origin guard,
 * a credential the authenticator already holds in memory, the body read as Fastify reads it (the same limit and
 * Content-Length check) and given to the server's own JSON parser, then the route's own work (`answerToolCall`),
 * its errors answered by the server's error answer, its reply written as Fastify writes it (JSON, `content-type`
 * and `content-length`). Everything else goes to Fastify untouched, body unread: a refused Host or Origin, a
 * missing, unknown or first-seen credential (the lookup and the 401), another content type, a chunked or empty
 * body or one over the limit, `Expect`, a query string, an escaped or long parameter, a server that is closing.
 */
export function toolCallFastPath(edge: ToolCallEdge, tools: Pick<ToolService, "call">, toFastify: Listener): Listener {
  const principalOf = (req: http.IncomingMessage): Principal | null => {
    const { headers } = req;
    const type = headers["content-type"];
    const length = headers["content-length"];
    if (type === undefined || !JSON_CONTENT_TYPES.has(type) || length === undefined || !DECIMAL.test(length) || Number(length) > edge.bodyLimit) return null;
    if (headers["transfer-encoding"] !== undefined || headers.expect !== undefined) return null;
    if (checkRequest(req, edge.hosts)) return null;
    return edge.authenticate.fromMemory(headers)?.principal ?? null;
  };

  const answer = (res: http.ServerResponse, status: number, body: unknown, close = false) => {
    const payload = JSON.stringify(body);
    const headers = { "content-type": "application/json; charset=utf-8", "content-length": Buffer.byteLength(payload) };
    res.writeHead(status, close ? { connection: "close", ...headers } : headers).end(payload);
  };
  // `close`: a body that could not be read or parsed closes the connection, as Fastify's parser does (the client may
  // send more of it).
  // A 5xx is logged as Fastify's error handler logs it, on a child logger with the request's id (Fastify counts its
  // own ids `req-<n>`; these are `req-fast-<n>`, so the two never name the same request).
  let failed = 0;
  const fail = (res: http.ServerResponse, error: unknown, close = false) => {
    if (res.headersSent) return void res.destroy(error instanceof Error ? error : undefined);
    const { status, body } = edge.errorAnswer(error);
    if (status >= 500) edge.log.child({ reqId: `req-fast-${(++failed).toString(36)}` }).error({ err: error }, "request failed");
    answer(res, status, body, close);
  };

  return (req, res) => {
    const match = req.method === "POST" && !edge.closing() ? TOOL_CALL_URL.exec(req.url ?? "") : null;
    const principal = match ? principalOf(req) : null;
    if (!match || !principal) return toFastify(req, res);
    const [, sessionId = "", tool = ""] = match;
    // A reply that cannot be serialized (JSON.stringify throws) is the error handler's, as in Fastify's reply.
    const call = (body: unknown) =>
      answerToolCall(tools, { principal, sessionId, tool, body, query: {}, response: res })
        .then(({ status, body: result }) => answer(res, status, result))
        .catch((error: unknown) => fail(res, error));
    readBody(req, edge.bodyLimit, (error, text) => {
      if (error) return fail(res, error, true);
      edge.parseJsonBody(req, text, (parseError, value) => (parseError ? fail(res, parseError, true) : void call(value)));
    });
  };
}

/** The body as Fastify's `parseAs: "string"` reads it (content-type-parser.js, rawBody): raw chunks, one decode. */
function readBody(req: http.IncomingMessage, limit: number, done: (error: Error | null, text: string) => void): void {
  const contentLength = Number(req.headers["content-length"]);
  const chunks: Buffer[] = [];
  let received = 0;
  const stop = () => {
    req.removeListener("data", onData);
    req.removeListener("end", onEnd);
    req.removeListener("error", onEnd);
  };
  function onData(chunk: Buffer) {
    received += chunk.length;
    if (received > limit) {
      stop();
      return done(new errorCodes.FST_ERR_CTP_BODY_TOO_LARGE(), "");
    }
    chunks.push(chunk);
  }
  function onEnd(error?: Error & { statusCode?: number }) {
    stop();
    if (error != null) {
      if (!(typeof error.statusCode === "number" && error.statusCode >= 400)) error.statusCode = 400;
      return done(error, "");
    }
    if (received !== contentLength) return done(new errorCodes.FST_ERR_CTP_INVALID_CONTENT_LENGTH(), "");
    done(null, chunks.length === 1 ? chunks[0]!.toString("utf8") : Buffer.concat(chunks, received).toString("utf8"));
  }
  req.on("data", onData);
  req.on("end", onEnd);
  req.on("error", onEnd);
  req.resume();
}
