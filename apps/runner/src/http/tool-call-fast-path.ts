import type http from "node:http";
import { errorCodes, type FastifyBaseLogger } from "fastify";
import { AppError } from "@berth/protocol";
import type { RequestAuthenticator } from "../auth/authenticate-request";
import type { Principal } from "../auth/tokens";
import type { ToolService } from "../tools/tool-service";
import { answerToolCall, type HangUp } from "./answer-tool-call";
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
const EMPTY = Buffer.alloc(0);

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
  const answer = toolCallAnswerer(edge, tools);
  return (req, res) => {
    const call = edge.closing() ? null : toolCallShape(req, edge.bodyLimit);
    const principal = call && !checkRequest(req, edge.hosts) ? (edge.authenticate.fromMemory(req.headers)?.principal ?? null) : null;
    if (!call || !principal) return toFastify(req, res);
    readBody(req, edge.bodyLimit, (error, body) => {
      if (error) return writeToolCallAnswer(res, answer.failed(error, true));
      void answer(principal, call, body.toString("utf8"), res).then((answered) => writeToolCallAnswer(res, answered));
    });
  };
}

/** A tool call's HTTP answer before it is written: its status, its JSON text, whether the connection closes after it. */
export interface ToolCallAnswer {
  status: number;
  payload: string;
  close: boolean;
}

/** Which session and tool a request calls, when the fast path may take it by its request line and headers alone. */
export interface ToolCallShape {
  sessionId: string;
  tool: string;
}

/**
 * The tool call the fast path takes as far as its request line and body headers say (a POST to a plain tool URL, a
 * JSON body of known length within `bodyLimit`, no Transfer-Encoding or Expect); the Host/Origin guard and the
 * credential are the caller's to check. The forwarder asks the same before it sends a call over a peer link.
 */
export function toolCallShape(req: http.IncomingMessage, bodyLimit: number): ToolCallShape | null {
  const match = req.method === "POST" ? TOOL_CALL_URL.exec(req.url ?? "") : null;
  if (!match) return null;
  const { headers } = req;
  const type = headers["content-type"];
  const length = headers["content-length"];
  if (type === undefined || !JSON_CONTENT_TYPES.has(type) || length === undefined || !DECIMAL.test(length) || Number(length) > bodyLimit) return null;
  if (headers["transfer-encoding"] !== undefined || headers.expect !== undefined) return null;
  return { sessionId: match[1] ?? "", tool: match[2] ?? "" };
}

/** The answer written as Fastify writes a JSON reply (`content-type`, `content-length`; `connection: close` when asked). */
export function writeToolCallAnswer(res: http.ServerResponse, { status, payload, close }: { status: number; payload: string | Buffer; close: boolean }): void {
  const headers = { "content-type": "application/json; charset=utf-8", "content-length": Buffer.byteLength(payload) };
  res.writeHead(status, close ? { connection: "close", ...headers } : headers).end(payload);
}

/**
 * The route's work for an authenticated call whose body text is read: the server's JSON parser, `answerToolCall`,
 * its reply serialized; an error is the server's error answer. `close`: a body that could not be read or parsed
 * closes the connection, as Fastify's parser does (the client may send more of it). A 5xx is logged as Fastify's
 * error handler logs it, on a child logger with the request's id (Fastify counts its own ids `req-<n>`; these are
 * `req-fast-<n>`, so the two never name the same request).
 */
function toolCallAnswerer(edge: ToolCallEdge, tools: Pick<ToolService, "call">) {
  let failed = 0;
  const failure = (error: unknown, close = false): ToolCallAnswer => {
    const { status, body } = edge.errorAnswer(error);
    if (status >= 500) edge.log.child({ reqId: `req-fast-${(++failed).toString(36)}` }).error({ err: error }, "request failed");
    return { status, payload: JSON.stringify(body), close };
  };
  const answer = (principal: Principal, { sessionId, tool }: ToolCallShape, text: string, response: HangUp): Promise<ToolCallAnswer> =>
    new Promise<ToolCallAnswer>((resolve) => {
      edge.parseJsonBody(null, text, (parseError, body) => {
        if (parseError) return resolve(failure(parseError, true));
        // A reply that cannot be serialized (JSON.stringify throws) is the error handler's, as in Fastify's reply.
        answerToolCall(tools, { principal, sessionId, tool, body, query: {}, response })
          .then(({ status, body: result }) => resolve({ status, payload: JSON.stringify(result), close: false }))
          .catch((error: unknown) => resolve(failure(error)));
      });
    });
  return Object.assign(answer, { failed: failure });
}

/** A call another runner sent over a peer link (cluster/peer-link.ts): the client's credential and guard headers, its body. */
export interface LinkedToolCall extends ToolCallShape {
  authorization?: string | undefined;
  cookie?: string | undefined;
  origin?: string | undefined;
  secFetchSite?: string | undefined;
}

/**
 * The owner's answer to a call that came over a peer link, as its fast path would answer the same HTTP request had
 * the peer forwarded it: this runner's Host/Origin guard (the link's Host, the client's Origin and cookie proof), the
 * client's credential authenticated here (from memory, or its lookup: a principal is never taken from a peer), the
 * body limit, then the route's own work. Never rejects: every error is an answer.
 */
export type AnswerLinkedToolCall = (call: LinkedToolCall, body: Buffer, hangUp: HangUp, linkHost: string) => Promise<ToolCallAnswer>;

export function linkedToolCallAnswerer(edge: ToolCallEdge, tools: Pick<ToolService, "call">): AnswerLinkedToolCall {
  const answer = toolCallAnswerer(edge, tools);
  return async (call, body, hangUp, linkHost) => {
    const headers = { host: linkHost, origin: call.origin, cookie: call.cookie, authorization: call.authorization, "sec-fetch-site": call.secFetchSite };
    const refusal = checkRequest({ method: "POST", headers }, edge.hosts);
    if (refusal) return { status: refusal.status, payload: JSON.stringify({ error: { code: refusal.code, message: refusal.message } }), close: false };
    const presented = { authorization: call.authorization, cookie: call.cookie };
    let principal: Principal | null;
    try {
      const found = edge.authenticate.fromMemory(presented) ?? (await edge.authenticate(presented));
      principal = found.principal;
      if (!principal) throw new AppError({ code: "unauthorized", message: found.presented ? "Invalid, expired or revoked credential" : "Missing bearer token (Authorization: Bearer <token>)" });
    } catch (error) {
      return answer.failed(error);
    }
    if (body.length > edge.bodyLimit) return answer.failed(new errorCodes.FST_ERR_CTP_BODY_TOO_LARGE(), true);
    return answer(principal, call, body.toString("utf8"), hangUp);
  };
}

/**
 * The body as Fastify's `parseAs: "string"` reads it (content-type-parser.js, rawBody): raw chunks, the same limit
 * and Content-Length check, then (the caller's) one decode. A read that fails is Fastify's error for it.
 */
export function readBody(req: http.IncomingMessage, limit: number, done: (error: Error | null, body: Buffer) => void): void {
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
      return done(new errorCodes.FST_ERR_CTP_BODY_TOO_LARGE(), EMPTY);
    }
    chunks.push(chunk);
  }
  function onEnd(error?: Error & { statusCode?: number }) {
    stop();
    if (error != null) {
      if (!(typeof error.statusCode === "number" && error.statusCode >= 400)) error.statusCode = 400;
      return done(error, EMPTY);
    }
    if (received !== contentLength) return done(new errorCodes.FST_ERR_CTP_INVALID_CONTENT_LENGTH(), EMPTY);
    done(null, chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, received));
  }
  req.on("data", onData);
  req.on("end", onEnd);
  req.on("error", onEnd);
  req.resume();
}
