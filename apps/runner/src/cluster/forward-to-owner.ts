import http from "node:http";
import https from "node:https";
import type { Duplex } from "node:stream";
import { AppError, toApiError } from "@berth/protocol";
import { errorAnswer } from "../http/build-server";
import { jsonRpcHttpError } from "../http/json-rpc-error";
import { readBody, toolCallShape, writeToolCallAnswer, type ToolCallShape } from "../http/tool-call-fast-path";
import { FORWARD_MARKER_HEADER, type ForwardMarker } from "./forward-marker";
import type { PeerLink, PeerLinks } from "./peer-link";

/** The runner holding a session's container, as the runner directory knows it (its Runner row). */
export interface SessionOwner {
  runnerId: string;
  url: string;
}

/** The session's owner when it is ANOTHER live runner; null when it is this one or nobody holds it. */
export type OwnerLookup = (sessionId: string) => Promise<SessionOwner | null>;

/** What a request needs the owner for, read from its path: a session, or a run or approval of one. */
export type ForwardTarget = { kind: "session" | "run" | "approval"; id: string };

export interface ForwardToOwnerDeps {
  runnerId: string;
  marker: ForwardMarker;
  ownerOf: OwnerLookup;
  /** The session of a run / an approval (null: unknown, answered here as a 404). */
  sessionOfRun: (runId: string) => Promise<string | null>;
  sessionOfApproval: (approvalId: string) => Promise<string | null>;
  /** Whether this runner has the session's container attached: then it is this runner's, with no lookup. */
  holdsLocally?: (sessionId: string) => boolean;
  /**
   * Whether a raw request may be forwarded (`early`): it passes this runner's Host/Origin guard and presents a
   * credential. One it does not admit is Fastify's to answer (its 421/403, its 401).
   */
  admitsEarly: (req: http.IncomingMessage) => boolean;
  /**
   * Links to the other runners (peer-link.ts): a tool call the owner's fast path would take goes over one as a
   * message when it is open; everything else, and every call while it is not, goes the HTTP way.
   */
  links?: PeerLinks;
  /** The runner's body limit (build-server.ts): a call over a link is read here as the fast path reads it. */
  bodyLimit?: number;
  /** Operator log: the owner's URL is named here, never to the client. */
  log: (message: string) => void;
}

/**
 * How long another runner's hold on a session is taken as known without asking the database again (a typist's
 * keystrokes, a burst of tool calls). A session that moved meanwhile costs one 503 "now held by" or "cannot be
 * reached", and the client's retry.
 */
const OWNER_CACHE_MS = 1_000;
const OWNER_CACHE_MAX = 10_000;
/**
 * A body up to this size (a tool call's JSON, its answer) is passed on whole, headers and body in one write: the
 * two loopback hops cost a syscall each way, not one per piece. Larger or open-ended ones (a download, MCP's SSE)
 * stream as they come.
 */
const WHOLE_BODY_MAX = 64 * 1024;

/**
 * Hop-by-hop headers (RFC 9110 §7.6.1) are this connection's, not the request's; Host is the owner's own (the
 * client's goes along as X-Forwarded-Host); the marker is ours to set, whatever a client sent.
 */
const HOP_BY_HOP = new Set(["connection", "keep-alive", "proxy-connection", "proxy-authorization", "te", "trailer", "transfer-encoding", "upgrade", "host", FORWARD_MARKER_HEADER]);

/**
 * Requests that need the session's sandbox (docs/scale-out.md, Forwarding): its tools, files, downloads,
 * skills, ports, restart and delete, its MCP endpoint, a run's cancel and an approval's files. Everything
 * else only reads or writes the database and is answered by whichever runner it reaches.
 */
export function forwardTargetOf(method: string, url: string): ForwardTarget | null {
  const path = url.split("?")[0] ?? "";
  let match = /^\/api\/sessions\/([^/]+)(\/.*)?$/.exec(path);
  if (match) return match[2] !== undefined || method === "DELETE" ? session(match[1]) : null;
  match = /^\/sessions\/([^/]+)\/ports(?:\/|$)/.exec(path) ?? /^\/mcp\/([^/]+)\/?$/.exec(path);
  if (match) return session(match[1]);
  match = /^\/api\/runs\/([^/]+)\/cancel$/.exec(path);
  if (match && method === "POST") return decoded("run", match[1]);
  match = /^\/api\/approvals\/([^/]+)\/files$/.exec(path);
  if (match && method === "GET") return decoded("approval", match[1]);
  return null;
}

function session(raw: string | undefined): ForwardTarget | null {
  return decoded("session", raw);
}

function decoded(kind: ForwardTarget["kind"], raw: string | undefined): ForwardTarget | null {
  try {
    const id = decodeURIComponent(raw ?? "");
    return id ? { kind, id } : null;
  } catch {
    return null; // a bad escape is the local route's 400
  }
}

/**
 * Forwards what a session's owner must answer to that owner, streaming both ways (a 100 MB download or an MCP
 * SSE stream is never held here), status and headers passed through. The client's credential goes as it came:
 * the owner authenticates and authorizes the request as if it had come straight to it. One hop at most: a
 * request carrying a valid marker is never forwarded again.
 */
export class ForwardToOwner {
  private readonly agents = { http: new http.Agent({ keepAlive: true }), https: new https.Agent({ keepAlive: true }) };
  private readonly owners = new Map<string, { owner: SessionOwner; until: number }>();
  /** Owner URLs parsed once: host, port and scheme for http.request. */
  private readonly targets = new Map<string, { secure: boolean; hostname: string; port: string; host: string }>();

  constructor(private readonly deps: ForwardToOwnerDeps) {}

  /** The owner to forward to, or null to answer here; throws the 503 when it must be forwarded and cannot be. */
  async ownerFor(target: ForwardTarget | null, marker: string | string[] | undefined, path: string): Promise<{ owner: SessionOwner; sessionId: string } | null> {
    if (!target) return null;
    const sessionId = target.kind === "session" ? target.id : target.kind === "run" ? await this.deps.sessionOfRun(target.id) : await this.deps.sessionOfApproval(target.id);
    if (!sessionId || this.deps.holdsLocally?.(sessionId)) return null;
    const owner = await this.otherOwner(sessionId);
    if (!owner || owner.runnerId === this.deps.runnerId) return null;
    const from = this.deps.marker.verify(marker, path);
    if (from) {
      // Ownership moved while the request was on its way: a second hop could loop, the client retries instead.
      throw unavailable(`Session ${sessionId} is now held by runner ${owner.runnerId} (runner ${from} forwarded this request to runner ${this.deps.runnerId}); retry the request`);
    }
    if (!this.deps.marker.canSign) {
      throw unavailable(`Session ${sessionId} is held by runner ${owner.runnerId}, and runner ${this.deps.runnerId} cannot forward to it: BERTH_CLUSTER_SECRET is not set`);
    }
    return { owner, sessionId };
  }

  /**
   * The raw request, before Fastify routes it (http/build-server.ts), and the one place the forwarding decision is
   * made: one for another runner's session that `admitsEarly` lets through is proxied at once, so this runner spends
   * on it only the proxying; the owner authenticates it. When it must be forwarded and cannot be (a lookup that
   * failed, the marker's or the secret's 503) it is answered here as Fastify's error handler would answer the same
   * error. Everything else goes to `next` (Fastify): a request with no credential gets its 401, a Host/Origin
   * refusal its 403/421, a session this runner or nobody holds its route.
   */
  readonly early = (req: http.IncomingMessage, res: http.ServerResponse, next: () => void): void => {
    const target = req.url && req.method ? forwardTargetOf(req.method, req.url) : null;
    if (!target || !this.deps.admitsEarly(req)) return next();
    const marker = req.headers[FORWARD_MARKER_HEADER];
    // Most requests are decided from memory, in this turn: a session this runner holds, or one another runner was
    // seen holding a moment ago.
    const known = this.knownNow(target, marker);
    if (known === "here") return next();
    if (known) return this.pass(req, res, known.owner, known.sessionId);
    this.ownerFor(target, marker, req.url!).then(
      (found) => (found ? this.pass(req, res, found.owner, found.sessionId) : next()),
      (error: unknown) => this.refuse(req, res, error),
    );
  };

  /** To the owner: over its peer link when the call is one its fast path takes and the link is open, else by HTTP. */
  private pass(req: http.IncomingMessage, res: http.ServerResponse, owner: SessionOwner, sessionId: string): void {
    const { links, bodyLimit } = this.deps;
    const call = links && bodyLimit ? toolCallShape(req, bodyLimit) : null;
    const link = call ? links!.ready(owner.url, owner.runnerId) : undefined;
    if (!call || !link) return this.proxy(req, res, owner, sessionId);
    this.overLink(req, res, link, call, owner);
  }

  /**
   * One tool call as one frame each way: the body read as the fast path reads it, sent with the client's credential
   * and guard headers (the owner authenticates and authorizes it), the owner's answer written as its fast path would
   * write it. A client that hangs up cancels the call there; a link that breaks first is the 503 "cannot be reached".
   */
  private overLink(req: http.IncomingMessage, res: http.ServerResponse, link: PeerLink, call: ToolCallShape, owner: SessionOwner): void {
    readBody(req, this.deps.bodyLimit!, (error, body) => {
      if (error) {
        const { status, body: refusal } = errorAnswer(error);
        return writeToolCallAnswer(res, { status, payload: JSON.stringify(refusal), close: true });
      }
      const { authorization, cookie, origin } = req.headers;
      const site = req.headers["sec-fetch-site"];
      const head = { ...call, authorization, cookie, origin, secFetchSite: typeof site === "string" ? site : undefined };
      const cancel = link.call(head, body, (outcome) => {
        if ("answer" in outcome) return writeToolCallAnswer(res, outcome.answer);
        const message = this.unreachable(owner, call.sessionId, outcome.error);
        writeToolCallAnswer(res, { status: 503, payload: JSON.stringify({ error: { code: "sandbox_unavailable", message } }), close: false });
      });
      res.on("close", () => {
        if (!res.writableFinished) cancel();
      });
    });
  }

  /**
   * A call runner `from` sent over a peer link is answered here, unless another runner holds the session by now:
   * then the 503 "now held by" (one hop at most, as for a request carrying a marker), and the client retries.
   */
  async answersLinked(sessionId: string, from: string): Promise<void> {
    if (this.deps.holdsLocally?.(sessionId)) return;
    const owner = await this.otherOwner(sessionId);
    if (owner && owner.runnerId !== this.deps.runnerId) {
      throw unavailable(`Session ${sessionId} is now held by runner ${owner.runnerId} (runner ${from} forwarded this request to runner ${this.deps.runnerId}); retry the request`);
    }
  }

  /** Streams one HTTP request to the owner and its response back. */
  proxy(req: http.IncomingMessage, res: http.ServerResponse, owner: SessionOwner, sessionId: string): void {
    const upstream = this.open(req, owner, false);
    if (wholeBody(req.headers)) whole(req, (body) => upstream.end(body));
    else req.pipe(upstream);
    upstream.on("response", (answer) => {
      const status = answer.statusCode ?? 502;
      const headers = endToEnd(answer.rawHeaders);
      answer.on("error", () => res.destroy());
      if (wholeBody(answer.headers)) return whole(answer, (body) => res.writeHead(status, answer.statusMessage, headers).end(body));
      res.writeHead(status, answer.statusMessage, headers);
      // An SSE stream (MCP's GET) may send its first event much later: the client has its headers now.
      res.flushHeaders();
      answer.pipe(res);
    });
    upstream.on("error", (error) => {
      if (res.headersSent) return void res.destroy();
      const message = this.unreachable(owner, sessionId, error);
      const mcp = (req.url ?? "").startsWith("/mcp/");
      const body = JSON.stringify(mcp ? { jsonrpc: "2.0", error: { code: -32000, message }, id: null } : { error: { code: "sandbox_unavailable", message } });
      res.writeHead(503, { "content-type": "application/json; charset=utf-8", "content-length": Buffer.byteLength(body) }).end(body);
    });
    // The client hung up: so does the owner's request (a tool call there ends as aborted, a download stops).
    res.on("close", () => {
      if (!res.writableFinished) upstream.destroy();
    });
  }

  /**
   * A WebSocket upgrade (a port preview's) for another runner's session: the handshake goes to the owner and,
   * once it answers 101, bytes flow both ways untouched. True when it was taken (forwarded or refused).
   */
  async upgrade(req: http.IncomingMessage, socket: Duplex, head: Buffer, target: ForwardTarget): Promise<boolean> {
    const found = await this.ownerFor(target, req.headers[FORWARD_MARKER_HEADER], req.url ?? "");
    if (!found) return false;
    const upstream = this.open(req, found.owner, true);
    upstream.on("upgrade", (answer, ownerSocket, ownerHead) => {
      socket.write(statusLine(answer) + headerLines(answer.rawHeaders));
      if (ownerHead.length > 0) socket.write(ownerHead);
      if (head.length > 0) ownerSocket.write(head);
      ownerSocket.pipe(socket, { end: false });
      socket.pipe(ownerSocket, { end: false });
      // A WebSocket has no half-close: when the client goes, the owner hears it at once (a reset: a FIN alone
      // would leave its side open while the server inside says nothing); when the owner ends, the client gets
      // what was sent and then the end.
      const clientGone = () => ownerSocket.resetAndDestroy();
      const ownerGone = () => void socket.end(() => socket.destroy());
      socket.on("end", clientGone).on("close", clientGone).on("error", clientGone);
      ownerSocket.on("end", ownerGone).on("close", ownerGone).on("error", ownerGone);
    });
    // Refused there (401, 404, 502 …): the owner's answer, as it wrote it.
    upstream.on("response", (answer) => {
      socket.write(statusLine(answer) + headerLines(endToEnd(answer.rawHeaders), "connection: close\r\n"));
      answer.pipe(socket);
    });
    upstream.on("error", (error) => {
      const message = this.unreachable(found.owner, found.sessionId, error);
      const body = JSON.stringify({ error: { code: "sandbox_unavailable", message } });
      socket.end(`HTTP/1.1 503 Service Unavailable\r\ncontent-type: application/json; charset=utf-8\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`);
    });
    socket.on("error", () => upstream.destroy());
    upstream.end();
    return true;
  }

  /**
   * What `ownerFor` would decide, when memory alone decides it: "here" for a session this runner holds, the owner for
   * one another runner was seen holding within OWNER_CACHE_MS (no marker on the request, a secret to sign with);
   * undefined when it takes a lookup or has an error to answer (ownerFor then).
   */
  private knownNow(target: ForwardTarget, marker: string | string[] | undefined): "here" | { owner: SessionOwner; sessionId: string } | undefined {
    if (target.kind !== "session") return undefined;
    if (this.deps.holdsLocally?.(target.id)) return "here";
    if (marker !== undefined || !this.deps.marker.canSign) return undefined;
    const owner = this.remembered(target.id);
    return owner && owner.runnerId !== this.deps.runnerId ? { owner, sessionId: target.id } : undefined;
  }

  /** The other runner holding the session, remembered for a moment; nobody/this runner is asked every time. */
  private async otherOwner(sessionId: string): Promise<SessionOwner | null> {
    const known = this.remembered(sessionId);
    if (known) return known;
    const owner = await this.deps.ownerOf(sessionId);
    if (!owner) {
      this.owners.delete(sessionId);
      return null;
    }
    if (this.owners.size >= OWNER_CACHE_MAX) this.owners.clear();
    this.owners.set(sessionId, { owner, until: Date.now() + OWNER_CACHE_MS });
    return owner;
  }

  /** The session's owner as seen within OWNER_CACHE_MS, if it was. */
  private remembered(sessionId: string): SessionOwner | undefined {
    const known = this.owners.get(sessionId);
    return known && known.until > Date.now() ? known.owner : undefined;
  }

  close(): void {
    this.deps.links?.close();
    this.agents.http.destroy();
    this.agents.https.destroy();
  }

  private open(req: http.IncomingMessage, owner: SessionOwner, upgrade: boolean): http.ClientRequest {
    const target = this.targetOf(owner.url);
    const path = req.url ?? "/";
    // The client's headers as they came (raw pairs: no per-header rebuild), less the hop-by-hop ones.
    const headers = endToEnd(req.rawHeaders);
    headers.push("host", target.host, FORWARD_MARKER_HEADER, this.deps.marker.sign(path));
    if (req.headers.host) headers.push("x-forwarded-host", req.headers.host);
    if (upgrade) headers.push("connection", "Upgrade", "upgrade", req.headers.upgrade ?? "websocket");
    return (target.secure ? https : http).request({
      protocol: target.secure ? "https:" : "http:",
      hostname: target.hostname,
      port: target.port,
      path,
      method: req.method ?? "GET",
      headers,
      // An upgraded socket leaves the pool; a kept-alive one makes the next forward skip a TCP handshake.
      ...(upgrade ? {} : { agent: target.secure ? this.agents.https : this.agents.http }),
    });
  }

  private targetOf(ownerUrl: string): { secure: boolean; hostname: string; port: string; host: string } {
    let target = this.targets.get(ownerUrl);
    if (!target) {
      const url = new URL(ownerUrl);
      const secure = url.protocol === "https:";
      // An IPv6 literal is bracketed in the URL's host, bare for the socket.
      target = { secure, hostname: url.hostname.replace(/^\[(.*)\]$/, "$1"), port: url.port || (secure ? "443" : "80"), host: url.host };
      if (this.targets.size >= OWNER_CACHE_MAX) this.targets.clear();
      this.targets.set(ownerUrl, target);
    }
    return target;
  }

  /**
   * The answer the runner's error handler gives the same error, byte for byte (status, its content-type, the
   * `{error:{code,message}}` body, or on /mcp/ the MCP route's JSON-RPC error; a lookup's own failure is a 500
   * "Internal error"); a 5xx is logged, as there.
   */
  private refuse(req: http.IncomingMessage, res: http.ServerResponse, error: unknown): void {
    // On /mcp/ the MCP route's own handler would answer in JSON-RPC, so this answers so too.
    const { status, body } = (req.url ?? "").startsWith("/mcp/") ? jsonRpcHttpError(error) : toApiError(error);
    if (status >= 500) this.deps.log(`deciding where ${req.method} ${(req.url ?? "").split("?")[0]} goes failed: ${(error as Error).message}`);
    const text = JSON.stringify(body);
    res.writeHead(status, { "content-type": "application/json; charset=utf-8", "content-length": Buffer.byteLength(text) }).end(text);
  }

  private unreachable(owner: SessionOwner, sessionId: string, error: Error): string {
    const why = (error as NodeJS.ErrnoException).code ?? error.message;
    this.deps.log(`forwarding a request for session ${sessionId} to runner ${owner.runnerId} at ${owner.url} failed: ${error.message}`);
    return `Session ${sessionId} is held by runner ${owner.runnerId}, which cannot be reached (${why}); retry once it is back or another runner has adopted the session`;
  }
}

function unavailable(message: string): AppError {
  return new AppError({ code: "sandbox_unavailable", message, userMessage: message });
}

/** Whether a message's body is known to be small: a Content-Length within WHOLE_BODY_MAX (no Transfer-Encoding). */
function wholeBody(headers: http.IncomingHttpHeaders): boolean {
  if (headers["transfer-encoding"] !== undefined) return false;
  const length = headers["content-length"];
  return length === undefined ? false : Number(length) <= WHOLE_BODY_MAX;
}

/** A small message's whole body, then `done` with it (an error on the stream is the caller's). */
function whole(message: http.IncomingMessage, done: (body: Buffer) => void): void {
  const chunks: Buffer[] = [];
  message.on("data", (chunk: Buffer) => chunks.push(chunk));
  message.on("end", () => done(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks)));
}

/** Names listed in a Connection header are hop-by-hop too. */
function connectionListed(value: string | undefined): Set<string> {
  return new Set((value ?? "").split(",").map((name) => name.trim().toLowerCase()).filter(Boolean));
}

/** A response's raw headers (name, value, name, value …) without the hop-by-hop ones. */
function endToEnd(raw: string[]): string[] {
  const listed = new Set<string>();
  for (let i = 0; i < raw.length; i += 2) if (raw[i]!.toLowerCase() === "connection") for (const name of connectionListed(raw[i + 1])) listed.add(name);
  const kept: string[] = [];
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i]!.toLowerCase();
    if (!HOP_BY_HOP.has(name) && !listed.has(name)) kept.push(raw[i]!, raw[i + 1] ?? "");
  }
  return kept;
}

function statusLine(answer: http.IncomingMessage): string {
  return `HTTP/1.1 ${answer.statusCode ?? 502} ${answer.statusMessage ?? ""}\r\n`;
}

function headerLines(raw: string[], extra = ""): string {
  let lines = "";
  for (let i = 0; i < raw.length; i += 2) lines += `${raw[i]}: ${raw[i + 1]}\r\n`;
  return `${lines}${extra}\r\n`;
}
