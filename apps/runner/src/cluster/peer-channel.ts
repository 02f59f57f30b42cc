import http from "node:http";
import https from "node:https";
import { Duplex } from "node:stream";
import { FORWARD_MARKER_HEADER, type ForwardMarker } from "./forward-marker";
import { encodeFrames, FrameKind, FrameReader, type Frame } from "./peer-frames";

/**
 * A peer channel: one long-lived connection from a runner to a session's owner that carries the small forwarded
 * requests (a tool call's JSON and its answer), many at once, as framed streams (peer-frames.ts). The HTTP proxy
 * (forward-to-owner.ts) pays a client request, its response parser and a pooled socket for each of them; this
 * pays a frame each way. On the owner each stream is handed to its own HTTP server as a connection of one
 * request (`connection` event, any Duplex: the documented way to give a server a connection), so the request is
 * parsed, guarded, authenticated and answered exactly as one that came over TCP; the client's hang-up is that
 * connection closing. The channel is opened with an HTTP Upgrade on the owner's port, signed with the cluster
 * secret (forward-marker.ts) for PEER_PATH: only a runner of the deployment opens one.
 */
export const PEER_PATH = "/_berth/peer";
export const PEER_PROTOCOL = "berth-peer/1";

/** After a failed connect, the next try waits this long, doubling up to the cap: a down owner is not hammered. */
const RETRY_FIRST_MS = 500;
const RETRY_MAX_MS = 30_000;
const CONNECT_TIMEOUT_MS = 5_000;

/** One side of a channel: frames in and out of a socket, by stream. */
class FramedConnection {
  private readonly reader = new FrameReader();
  private corked = false;

  constructor(
    readonly socket: Duplex,
    onFrame: (frame: Frame) => void,
    onClose: (error: Error) => void,
  ) {
    let closed = false;
    const close = (error: Error) => {
      if (closed) return;
      closed = true;
      socket.destroy();
      onClose(error);
    };
    socket.on("data", (chunk: Buffer) => {
      let frames: Frame[];
      try {
        frames = this.reader.push(chunk);
      } catch (error) {
        return close(error as Error);
      }
      for (const frame of frames) onFrame(frame);
    });
    socket.on("error", (error) => close(error));
    socket.on("close", () => close(new Error("the peer channel closed")));
  }

  send(stream: number, kind: FrameKind, payload?: Buffer): boolean {
    // Frames sent before the loop polls again (a response's bytes and then its end, a burst of calls) leave in
    // one write: the server ends a response a few ticks after it wrote it.
    if (!this.corked) {
      this.corked = true;
      this.socket.cork();
      setImmediate(() => {
        this.corked = false;
        this.socket.uncork();
      });
    }
    let flushed = true;
    for (const piece of encodeFrames(stream, kind, payload)) flushed = this.socket.write(piece);
    return flushed;
  }
}

/** What came back for a request: its status line's code and message, the headers as raw pairs, the body. */
export interface PeerResponse {
  status: number;
  statusMessage: string;
  rawHeaders: string[];
  body: Buffer;
}

interface Exchange {
  chunks: Buffer[];
  resolve: (response: PeerResponse) => void;
  reject: (error: Error) => void;
}

/** The forwarding side: one channel per owner URL, opened on first use and again after it is lost. */
export class PeerLinks {
  private readonly links = new Map<string, PeerLink>();

  constructor(
    private readonly marker: ForwardMarker,
    private readonly log: (line: string) => void,
  ) {}

  /** The owner's channel when it is open; null while it connects or after a failure (the caller proxies meanwhile). */
  ready(ownerUrl: string): PeerLink | null {
    let link = this.links.get(ownerUrl);
    if (!link) this.links.set(ownerUrl, (link = new PeerLink(ownerUrl, this.marker, this.log)));
    return link.ready() ? link : null;
  }

  close(): void {
    for (const link of this.links.values()) link.close();
    this.links.clear();
  }
}

export class PeerLink {
  private connection: FramedConnection | null = null;
  private connecting = false;
  private retryAt = 0;
  private retryMs = RETRY_FIRST_MS;
  private nextStream = 1;
  private readonly exchanges = new Map<number, Exchange>();
  private closed = false;

  constructor(
    private readonly ownerUrl: string,
    private readonly marker: ForwardMarker,
    private readonly log: (line: string) => void,
  ) {}

  /** Whether requests can go now; starts connecting when they cannot and the last failure is long enough ago. */
  ready(): boolean {
    if (this.connection) return true;
    if (!this.connecting && !this.closed && Date.now() >= this.retryAt) this.connect();
    return false;
  }

  /**
   * Sends one request's HTTP/1.1 bytes (`Connection: close`: the stream is its connection) and resolves with the
   * owner's response once the owner ends the stream; rejects when the channel is lost first. `signal` abandons it.
   */
  request(bytes: Buffer, signal: { onAbort: (abort: () => void) => void }): Promise<PeerResponse> {
    const connection = this.connection;
    if (!connection) return Promise.reject(new Error("the peer channel is not open"));
    const stream = this.nextStream;
    this.nextStream = this.nextStream >= 0xffff_fff0 ? 1 : this.nextStream + 1;
    return new Promise<PeerResponse>((resolve, reject) => {
      this.exchanges.set(stream, { chunks: [], resolve, reject });
      connection.send(stream, FrameKind.data, bytes);
      signal.onAbort(() => {
        if (!this.exchanges.delete(stream)) return;
        this.connection?.send(stream, FrameKind.reset);
        reject(new Error("the client hung up"));
      });
    });
  }

  close(): void {
    this.closed = true;
    this.connection?.socket.destroy();
  }

  private connect(): void {
    this.connecting = true;
    const url = new URL(this.ownerUrl);
    const secure = url.protocol === "https:";
    const request = (secure ? https : http).request({
      protocol: url.protocol,
      hostname: url.hostname.replace(/^\[(.*)\]$/, "$1"),
      port: url.port || (secure ? 443 : 80),
      path: PEER_PATH,
      method: "GET",
      headers: { host: url.host, connection: "Upgrade", upgrade: PEER_PROTOCOL, [FORWARD_MARKER_HEADER]: this.marker.sign(PEER_PATH) },
      timeout: CONNECT_TIMEOUT_MS,
    });
    const failed = (why: string) => {
      if (!this.connecting) return;
      this.connecting = false;
      this.retryAt = Date.now() + this.retryMs;
      this.log(`peer channel to ${this.ownerUrl} not opened (${why}); forwarding over HTTP, next try in ${this.retryMs / 1000} s`);
      this.retryMs = Math.min(this.retryMs * 2, RETRY_MAX_MS);
    };
    request.on("upgrade", (answer, socket, head) => {
      if (answer.headers.upgrade !== PEER_PROTOCOL) {
        socket.destroy();
        return failed(`the owner answered upgrade ${answer.headers.upgrade ?? "(none)"}`);
      }
      this.connecting = false;
      this.retryMs = RETRY_FIRST_MS;
      socket.setNoDelay(true);
      socket.setTimeout(0);
      const connection = new FramedConnection(socket, (frame) => this.receive(frame), (error) => this.lost(connection, error));
      this.connection = connection;
      if (head.length > 0) socket.unshift(head);
    });
    request.on("response", (answer) => {
      answer.resume();
      failed(`the owner answered ${answer.statusCode}`);
    });
    request.on("timeout", () => request.destroy(new Error(`no answer within ${CONNECT_TIMEOUT_MS / 1000} s`)));
    request.on("error", (error) => failed((error as NodeJS.ErrnoException).code ?? error.message));
    request.end();
  }

  private receive(frame: Frame): void {
    const exchange = this.exchanges.get(frame.stream);
    if (!exchange) return; // abandoned here already
    if (frame.kind === FrameKind.data) return void exchange.chunks.push(frame.payload);
    this.exchanges.delete(frame.stream);
    if (frame.kind === FrameKind.reset) return exchange.reject(new Error("the owner dropped the request"));
    try {
      exchange.resolve(parseResponse(Buffer.concat(exchange.chunks)));
    } catch (error) {
      exchange.reject(error as Error);
    }
  }

  /** The channel is gone: what was in flight fails (the caller answers 503), the next request reconnects. */
  private lost(connection: FramedConnection, error: Error): void {
    if (this.connection !== connection) return;
    this.connection = null;
    if (!this.closed) this.log(`peer channel to ${this.ownerUrl} lost: ${error.message}`);
    const inFlight = [...this.exchanges.values()];
    this.exchanges.clear();
    for (const exchange of inFlight) exchange.reject(error);
  }
}

/**
 * The owning side: takes an Upgrade to PEER_PATH when its marker is good (else 403 and close; false when the
 * upgrade is not for PEER_PATH at all) and hands each stream to `server` as a connection of its own.
 */
export function acceptPeer(
  req: http.IncomingMessage,
  socket: Duplex,
  head: Buffer,
  opts: { server: http.Server; marker: ForwardMarker; log: (line: string) => void },
): boolean {
  if ((req.url ?? "").split("?")[0] !== PEER_PATH) return false;
  socket.on("error", () => socket.destroy());
  const from = req.headers.upgrade === PEER_PROTOCOL ? opts.marker.verify(req.headers[FORWARD_MARKER_HEADER], PEER_PATH) : null;
  if (!from) {
    const body = JSON.stringify({ error: { code: "forbidden", message: "A peer channel is opened only by a runner of this deployment" } });
    socket.end(`HTTP/1.1 403 Forbidden\r\ncontent-type: application/json; charset=utf-8\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`);
    return true;
  }
  socket.write(`HTTP/1.1 101 Switching Protocols\r\nconnection: Upgrade\r\nupgrade: ${PEER_PROTOCOL}\r\n\r\n`);
  const tcp = socket as Duplex & { setNoDelay?: (on: boolean) => void; setTimeout?: (ms: number) => void; remoteAddress?: string; remotePort?: number; encrypted?: boolean };
  tcp.setNoDelay?.(true);
  tcp.setTimeout?.(0);
  const streams = new Map<number, StreamConnection>();
  const connection = new FramedConnection(
    socket,
    (frame) => {
      let stream = streams.get(frame.stream);
      if (frame.kind === FrameKind.data) {
        if (!stream) {
          stream = new StreamConnection(connection, frame.stream, tcp, () => streams.delete(frame.stream));
          streams.set(frame.stream, stream);
          opts.server.emit("connection", stream);
        }
        stream.push(frame.payload);
      } else if (stream) {
        // The client hung up (reset) or sent its end: a reset is the connection closing under the request.
        if (frame.kind === FrameKind.reset) stream.destroy();
        else stream.push(null);
      }
    },
    (error) => {
      opts.log(`peer channel from runner ${from} closed: ${error.message}`);
      for (const stream of streams.values()) stream.destroy();
      streams.clear();
    },
  );
  if (head.length > 0) socket.unshift(head);
  return true;
}

/**
 * One stream of a channel as a connection for the owner's HTTP server: what the server writes goes back as data
 * frames, its end as the end frame; it looks like the channel's socket to whoever asks (remote address, TLS).
 */
class StreamConnection extends Duplex {
  readonly remoteAddress: string | undefined;
  readonly remotePort: number | undefined;
  readonly remoteFamily: string | undefined;
  readonly encrypted: boolean | undefined;
  private ended = false;

  constructor(
    private readonly channel: FramedConnection,
    private readonly stream: number,
    socket: { remoteAddress?: string; remotePort?: number; remoteFamily?: string; encrypted?: boolean },
    private readonly done: () => void,
  ) {
    super({ allowHalfOpen: true });
    this.remoteAddress = socket.remoteAddress;
    this.remotePort = socket.remotePort;
    this.remoteFamily = socket.remoteFamily;
    this.encrypted = socket.encrypted;
  }

  override _read(): void {}

  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: (error?: Error | null) => void): void {
    if (this.channel.send(this.stream, FrameKind.data, chunk)) return callback();
    this.channel.socket.once("drain", () => callback());
  }

  override _final(callback: (error?: Error | null) => void): void {
    this.ended = true;
    this.channel.send(this.stream, FrameKind.end);
    callback();
    // One request per stream: its reading side ends too, so the connection is destroyed and forgotten.
    this.push(null);
  }

  override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
    // Closed before the response was complete (the server failed it, or the channel went): the other side drops it.
    if (!this.ended && !this.channel.socket.destroyed) this.channel.send(this.stream, FrameKind.reset);
    this.done();
    callback(error);
  }

  // What node's HTTP server calls on a connection's socket.
  setTimeout(): this {
    return this;
  }
  setNoDelay(): this {
    return this;
  }
  setKeepAlive(): this {
    return this;
  }
  ref(): this {
    return this;
  }
  unref(): this {
    return this;
  }
}

/** The request as HTTP/1.1 bytes for the owner: one request, then the stream's end (`Connection: close`). */
export function serializeRequest(method: string, path: string, rawHeaders: string[], body: Buffer): Buffer {
  let head = `${method} ${path} HTTP/1.1\r\n`;
  for (let i = 0; i < rawHeaders.length; i += 2) head += `${rawHeaders[i]}: ${rawHeaders[i + 1]}\r\n`;
  head += "connection: close\r\n\r\n";
  return body.length > 0 ? Buffer.concat([Buffer.from(head, "latin1"), body]) : Buffer.from(head, "latin1");
}

/**
 * The owner's response bytes (node's own HTTP server wrote them: a status line, headers, then a body delimited by
 * its Content-Length, chunked, or by the end of the stream).
 */
export function parseResponse(bytes: Buffer): PeerResponse {
  const headEnd = bytes.indexOf("\r\n\r\n");
  if (headEnd === -1) throw new Error("the owner's response ended inside its headers");
  const lines = bytes.toString("latin1", 0, headEnd).split("\r\n");
  const status = /^HTTP\/1\.[01] (\d{3})(?: (.*))?$/.exec(lines[0] ?? "");
  if (!status) throw new Error(`the owner's response starts with ${JSON.stringify((lines[0] ?? "").slice(0, 40))}`);
  const rawHeaders: string[] = [];
  let length: number | undefined;
  let chunked = false;
  for (const line of lines.slice(1)) {
    const colon = line.indexOf(":");
    if (colon <= 0) throw new Error(`the owner's response has a header line without a name: ${JSON.stringify(line.slice(0, 40))}`);
    const name = line.slice(0, colon);
    const value = line.slice(colon + 1).trim();
    const lower = name.toLowerCase();
    if (lower === "content-length") length = Number(value);
    if (lower === "transfer-encoding") chunked = /chunked/i.test(value);
    rawHeaders.push(name, value);
  }
  let body = bytes.subarray(headEnd + 4);
  if (chunked) body = dechunk(body);
  else if (length !== undefined) {
    if (body.length < length) throw new Error(`the owner's response ended after ${body.length} of its ${length} bytes`);
    body = body.subarray(0, length);
  }
  return { status: Number(status[1]), statusMessage: status[2] ?? "", rawHeaders, body };
}

function dechunk(bytes: Buffer): Buffer {
  const pieces: Buffer[] = [];
  let offset = 0;
  for (;;) {
    const lineEnd = bytes.indexOf("\r\n", offset);
    if (lineEnd === -1) throw new Error("the owner's chunked response ended inside a chunk's size");
    const size = parseInt(bytes.toString("latin1", offset, lineEnd).split(";")[0]!, 16);
    if (!Number.isFinite(size)) throw new Error("the owner's chunked response has a bad chunk size");
    if (size === 0) return Buffer.concat(pieces);
    if (lineEnd + 2 + size > bytes.length) throw new Error("the owner's chunked response ended inside a chunk");
    pieces.push(bytes.subarray(lineEnd + 2, lineEnd + 2 + size));
    offset = lineEnd + 2 + size + 2;
  }
}
