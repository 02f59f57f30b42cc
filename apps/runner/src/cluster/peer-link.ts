import crypto from "node:crypto";
import { EventEmitter } from "node:events";
import http from "node:http";
import https from "node:https";
import type net from "node:net";
import type { Duplex } from "node:stream";
import { toApiError } from "@berth/protocol";
import type { HangUp } from "../http/answer-tool-call";
import type { AnswerLinkedToolCall, ToolCallAnswer } from "../http/tool-call-fast-path";
import {
  encodeFrame,
  FrameReader,
  PEER_LINK_ANSWER_MAX,
  PeerLinkAnswerSchema,
  PeerLinkToOwnerSchema,
  type PeerLinkAnswer,
  type PeerLinkCall,
  type PeerLinkToOwner,
} from "./peer-link-frame";

/**
 * Where a runner takes its peers' links: an HTTP Upgrade on its own port (no port of its own, nothing listening
 * that the runner's HTTP does not already), refused unless the peer proves it holds the cluster secret.
 */
export const PEER_LINK_PATH = "/cluster/link";
const PROTOCOL = "berth-peer-link-v1";
const RUNNER_HEADER = "x-berth-link-runner";
const NONCE_HEADER = "x-berth-link-nonce";
const PROOF_HEADER = "x-berth-link-proof";
const RUNNER_ID = /^[a-z0-9-]{1,32}$/;
const NONCE = /^[0-9a-f]{64}$/;
/** What Fastify answers a request that arrives while the server closes (its return503OnClosing). */
const CLOSING_ANSWER = '{"error":"Service Unavailable","message":"Service Unavailable","statusCode":503}';
/** How long a peer has to prove itself once the upgrade is answered; a link not made by then is given up. */
const HANDSHAKE_MS = 5_000;
/** After a link could not be made, the next try waits this long (calls go the HTTP way meanwhile). */
const RETRY_MS = 1_000;
/** Links kept at most: more owner URLs than this (runners restarted on new ports) and the broken ones are dropped. */
const LINKS_MAX = 100;

/**
 * What proves a side of the handshake: an HMAC with the cluster secret (which never travels) over the role, the
 * runner's id and both sides' fresh nonces, so a proof is good for this link only and the owner's proof can never
 * stand in for the peer's.
 */
function proof(secret: crypto.KeyObject, role: "owner" | "peer", runnerId: string, peerNonce: string, ownerNonce: string): string {
  return crypto.createHmac("sha256", secret).update(`${PROTOCOL}\n${role}\n${runnerId}\n${peerNonce}\n${ownerNonce}`).digest("hex");
}

function sameProof(expected: string, given: string | undefined): boolean {
  return typeof given === "string" && NONCE.test(given) && crypto.timingSafeEqual(Buffer.from(expected, "hex"), Buffer.from(given, "hex"));
}

/** A tool call's HTTP answer as the owner's fast path writes it: its status, its JSON body's text, whether it closes. */
export interface LinkedAnswer {
  status: number;
  payload: Buffer;
  close: boolean;
}

/** One call in flight on the owner: closed when the peer cancels it or the link goes. */
class LinkedCallHangUp extends EventEmitter implements HangUp {
  writableFinished = false;
}

/**
 * The owner's side: takes a peer's upgrade on PEER_LINK_PATH, answers with its own proof, and reads nothing but the
 * peer's proof (`hello`) until it holds; then each `call` frame is answered with one `answer` frame, and a `cancel`
 * hangs the call up. A malformed frame or a wrong proof ends the link (logged), never the runner.
 */
export class PeerLinkServer {
  private readonly secret: crypto.KeyObject;
  /** Each open link's calls in flight. */
  private readonly links = new Map<Duplex, Map<number, LinkedCallHangUp>>();
  private answerer: AnswerLinkedToolCall | undefined;
  private closed = false;

  constructor(
    private readonly deps: {
      runnerId: string;
      secret: string;
      /** The upgrade request passes this runner's Host/Origin guard (its Host is the one the calls are checked with). */
      admits: (req: http.IncomingMessage) => boolean;
      /** Resolves when a call runner `from` sent is this runner's to answer; rejects with the 503 when it moved. */
      answersHere: (sessionId: string, from: string) => Promise<void>;
      log: (message: string) => void;
    },
  ) {
    this.secret = crypto.createSecretKey(Buffer.from(deps.secret, "utf8"));
  }

  /** What answers the calls (the fast path's, from build-server.ts); until it is given, links are refused. */
  serve(answer: AnswerLinkedToolCall): void {
    this.answerer = answer;
  }

  /** A linked call's answer: the session still here, then the fast path's work; every error an answer. */
  private answer(call: PeerLinkCall, body: Buffer, hangUp: HangUp, linkHost: string, from: string): Promise<ToolCallAnswer> {
    const answer = this.answerer!;
    return this.deps.answersHere(call.sessionId, from).then(
      () => answer(call, body, hangUp, linkHost),
      (error: unknown) => {
        const { status, body: refusal } = toApiError(error);
        if (status >= 500) this.deps.log(`deciding where a linked call for session ${call.sessionId} goes failed: ${(error as Error).message}`);
        return { status, payload: JSON.stringify(refusal), close: false };
      },
    );
  }

  /** Takes the links that arrive at `server` (an upgrade on PEER_LINK_PATH; other upgrades are not its). */
  attach(server: http.Server): void {
    server.on("upgrade", (req: http.IncomingMessage, socket: Duplex, head: Buffer) => {
      if (req.url === PEER_LINK_PATH) this.accept(req, socket, head);
    });
  }

  /** An upgrade request on PEER_LINK_PATH. */
  accept(req: http.IncomingMessage, socket: Duplex, head: Buffer): void {
    socket.on("error", () => socket.destroy());
    const peerId = req.headers[RUNNER_HEADER];
    const peerNonce = req.headers[NONCE_HEADER];
    const refuse = (status: string, why: string) => {
      this.deps.log(`peer link refused: ${why}`);
      socket.end(`HTTP/1.1 ${status}\r\nconnection: close\r\ncontent-length: 0\r\n\r\n`);
    };
    if (req.method !== "GET" || (req.headers.upgrade ?? "").toLowerCase() !== PROTOCOL) return refuse("400 Bad Request", `not a ${PROTOCOL} upgrade`);
    if (typeof peerId !== "string" || !RUNNER_ID.test(peerId) || typeof peerNonce !== "string" || !NONCE.test(peerNonce)) return refuse("400 Bad Request", "no runner id or nonce");
    if (!this.answerer || this.closed) return refuse("503 Service Unavailable", `this runner ${this.closed ? "is closing" : "does not answer linked calls yet"}`);
    if (!this.deps.admits(req)) return refuse("421 Misdirected Request", `Host ${JSON.stringify(req.headers.host ?? "")} is not one this runner answers`);
    const ownerNonce = crypto.randomBytes(32).toString("hex");
    const ownerProof = proof(this.secret, "owner", this.deps.runnerId, peerNonce, ownerNonce);
    socket.write(
      `HTTP/1.1 101 Switching Protocols\r\nconnection: Upgrade\r\nupgrade: ${PROTOCOL}\r\n${RUNNER_HEADER}: ${this.deps.runnerId}\r\n${NONCE_HEADER}: ${ownerNonce}\r\n${PROOF_HEADER}: ${ownerProof}\r\n\r\n`,
    );
    this.open(socket, head, req.headers.host ?? "", peerId, proof(this.secret, "peer", peerId, peerNonce, ownerNonce));
  }

  private open(socket: Duplex, head: Buffer, linkHost: string, peerId: string, expected: string): void {
    (socket as net.Socket).setNoDelay?.(true);
    const calls = new Map<number, LinkedCallHangUp>();
    this.links.set(socket, calls);
    let proven = false;
    const handshake = setTimeout(() => end(`runner ${peerId} did not prove itself within ${HANDSHAKE_MS} ms`), HANDSHAKE_MS);
    handshake.unref();
    const end = (why: string | null) => {
      if (why) this.deps.log(`peer link from runner ${peerId} closed: ${why}`);
      socket.destroy();
    };
    socket.on("close", () => {
      clearTimeout(handshake);
      this.links.delete(socket);
      this.drained();
      // The peer is gone with its clients' calls: each is hung up, as a client's closed HTTP connection would.
      for (const hangUp of calls.values()) hangUp.emit("close");
      calls.clear();
    });
    const onFrame = ({ head: frame, payload }: { head: PeerLinkToOwner; payload: Buffer }) => {
      if (!proven) {
        if (frame.type !== "hello" || frame.runnerId !== peerId || !sameProof(expected, frame.proof)) return end(`runner ${peerId} sent ${frame.type === "hello" ? "a wrong proof" : `a ${frame.type} before its proof`}`);
        proven = true;
        clearTimeout(handshake);
        return;
      }
      if (frame.type === "hello") return end("a second hello");
      if (frame.type === "cancel") {
        // Its answer is not sent: the client is gone.
        calls.get(frame.id)?.emit("close");
        return void calls.delete(frame.id);
      }
      if (calls.has(frame.id)) return end(`call ${frame.id} is already in flight`);
      if (this.closed) return void socket.write(encodeFrame({ type: "answer", id: frame.id, status: 503 } satisfies PeerLinkAnswer, CLOSING_ANSWER));
      const hangUp = new LinkedCallHangUp();
      calls.set(frame.id, hangUp);
      this.answer(frame, payload, hangUp, linkHost, peerId).then(
        ({ status, payload: answer, close }) => {
          hangUp.writableFinished = true;
          if (calls.get(frame.id) !== hangUp) return;
          calls.delete(frame.id);
          socket.write(encodeFrame({ type: "answer", id: frame.id, status, ...(close ? { close } : {}) } satisfies PeerLinkAnswer, answer));
          if (this.closed && calls.size === 0) socket.end(() => socket.destroy());
        },
        (error: unknown) => {
          // The answerer turns every error into an answer; one that escapes it is a bug, and the link goes with it.
          calls.delete(frame.id);
          end(`answering call ${frame.id} failed: ${(error as Error).message}`);
        },
      );
    };
    const reader = new FrameReader<PeerLinkToOwner>(PeerLinkToOwnerSchema, onFrame, (error) => end(error.message));
    socket.on("data", (chunk: Buffer) => reader.push(chunk));
    // A link has no half-close: the peer's end is the link's.
    socket.on("end", () => end(null));
    if (head.length > 0) reader.push(head);
  }

  /**
   * The runner is closing: no new link is taken, a call that still arrives gets Fastify's closing 503, and each link
   * ends once its calls in flight are answered (as Fastify lets requests in flight finish). Resolves when all have
   * ended; the peers go the HTTP way meanwhile.
   */
  close(): Promise<void> {
    this.closed = true;
    for (const [socket, calls] of this.links) if (calls.size === 0) socket.end(() => socket.destroy());
    return new Promise((resolve) => {
      this.drained = () => {
        if (this.links.size === 0) resolve();
      };
      this.drained();
    });
  }

  private drained: () => void = () => undefined;
}

/** A tool call's answer from the owner, or the link's failure before it came. */
export type LinkedCallOutcome = { answer: LinkedAnswer } | { error: Error };

/**
 * One authenticated link to one peer: calls multiplexed on one connection by id, one frame each way.
 */
export class PeerLink {
  private nextId = 0;
  private readonly calls = new Map<number, (outcome: LinkedCallOutcome) => void>();
  private broken: Error | null = null;

  constructor(private readonly socket: Duplex) {
    const reader = new FrameReader<PeerLinkAnswer>(PeerLinkAnswerSchema, ({ head, payload }) => this.answered(head, payload), (error) => this.break(error), PEER_LINK_ANSWER_MAX);
    socket.on("data", (chunk: Buffer) => reader.push(chunk));
    socket.on("error", (error) => this.break(error));
    socket.on("end", () => this.break(new Error("the link closed")));
    socket.on("close", () => this.break(new Error("the link closed")));
  }

  get usable(): boolean {
    return this.broken === null;
  }

  /** Sends one call; `done` gets its answer or the link's failure. Returns the hang-up (a cancel frame). */
  call(head: Omit<PeerLinkCall, "type" | "id">, body: Buffer, done: (outcome: LinkedCallOutcome) => void): () => void {
    if (this.broken) {
      done({ error: this.broken });
      return () => undefined;
    }
    const id = this.nextId++;
    this.calls.set(id, done);
    this.socket.write(encodeFrame({ type: "call", id, ...head } satisfies PeerLinkCall, body));
    return () => {
      if (this.calls.delete(id) && !this.broken) this.socket.write(encodeFrame({ type: "cancel", id }));
    };
  }

  private answered(head: PeerLinkAnswer, payload: Buffer): void {
    const done = this.calls.get(head.id);
    if (!done) return; // cancelled meanwhile
    this.calls.delete(head.id);
    done({ answer: { status: head.status, payload, close: head.close === true } });
  }

  private break(error: Error): void {
    if (this.broken) return;
    this.broken = error;
    this.socket.destroy();
    for (const done of this.calls.values()) done({ error });
    this.calls.clear();
  }

  close(): void {
    this.break(new Error("the runner is closing"));
  }
}

/**
 * This runner's links to its peers, one per owner URL, opened on first need and reopened after a break (not sooner
 * than RETRY_MS after a failure). `ready` never waits: a peer with no link open yet is reached the HTTP way meanwhile.
 */
export class PeerLinks {
  private readonly secret: crypto.KeyObject;
  private readonly links = new Map<string, { link: PeerLink | null; opening: boolean; retryAt: number }>();
  private closed = false;

  constructor(
    private readonly deps: {
      runnerId: string;
      secret: string;
      log: (message: string) => void;
      now?: () => number;
    },
  ) {
    this.secret = crypto.createSecretKey(Buffer.from(deps.secret, "utf8"));
  }

  /** The open link to the runner at `url`, or undefined (then one is being opened, unless a recent try failed). */
  ready(url: string, runnerId: string): PeerLink | undefined {
    const known = this.links.get(url);
    if (known?.link?.usable) return known.link;
    const now = (this.deps.now ?? Date.now)();
    if (this.closed || known?.opening || (known && now < known.retryAt)) return undefined;
    if (this.links.size >= LINKS_MAX) for (const [known, { link, opening }] of this.links) if (!opening && !link?.usable) this.links.delete(known);
    const entry = { link: null as PeerLink | null, opening: true, retryAt: 0 };
    this.links.set(url, entry);
    this.open(url, runnerId).then(
      (link) => {
        entry.opening = false;
        if (this.closed) return link.close();
        entry.link = link;
      },
      (error: unknown) => {
        entry.opening = false;
        entry.retryAt = (this.deps.now ?? Date.now)() + RETRY_MS;
        this.deps.log(`peer link to runner ${runnerId} at ${url} could not be opened: ${(error as Error).message}`);
      },
    );
    return undefined;
  }

  /** Opens and authenticates a link: the upgrade, the owner's proof checked, then ours sent. */
  open(url: string, runnerId: string): Promise<PeerLink> {
    const target = new URL(url);
    const secure = target.protocol === "https:";
    const peerNonce = crypto.randomBytes(32).toString("hex");
    return new Promise<PeerLink>((resolve, reject) => {
      const request = (secure ? https : http).request({
        hostname: target.hostname.replace(/^\[(.*)\]$/, "$1"),
        port: target.port || (secure ? 443 : 80),
        path: PEER_LINK_PATH,
        method: "GET",
        headers: { host: target.host, connection: "Upgrade", upgrade: PROTOCOL, [RUNNER_HEADER]: this.deps.runnerId, [NONCE_HEADER]: peerNonce },
        timeout: HANDSHAKE_MS,
      });
      request.on("timeout", () => request.destroy(new Error(`no answer within ${HANDSHAKE_MS} ms`)));
      request.on("error", reject);
      request.on("response", (answer) => {
        answer.resume();
        reject(new Error(`the runner answered ${answer.statusCode} to the link's upgrade`));
      });
      request.on("upgrade", (answer, socket, head) => {
        const ownerId = answer.headers[RUNNER_HEADER];
        const ownerNonce = answer.headers[NONCE_HEADER];
        if (ownerId !== runnerId || typeof ownerNonce !== "string" || !NONCE.test(ownerNonce)) {
          socket.destroy();
          return reject(new Error(`the runner at ${url} is not runner ${runnerId} (it says ${JSON.stringify(ownerId ?? "")})`));
        }
        const given = answer.headers[PROOF_HEADER];
        if (!sameProof(proof(this.secret, "owner", runnerId, peerNonce, ownerNonce), typeof given === "string" ? given : undefined)) {
          socket.destroy();
          return reject(new Error(`runner ${runnerId} did not prove it holds the cluster secret`));
        }
        if (head.length > 0) {
          socket.destroy();
          return reject(new Error("the owner sent frames before our proof"));
        }
        (socket as net.Socket).setNoDelay(true);
        socket.write(encodeFrame({ type: "hello", runnerId: this.deps.runnerId, proof: proof(this.secret, "peer", this.deps.runnerId, peerNonce, ownerNonce) }));
        resolve(new PeerLink(socket));
      });
      request.end();
    });
  }

  close(): void {
    this.closed = true;
    for (const { link } of this.links.values()) link?.close();
    this.links.clear();
  }
}
