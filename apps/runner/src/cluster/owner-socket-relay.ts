import { io as connect, type Socket as ClientSocket } from "socket.io-client";
import { AppError, ErrorCodeSchema, SERVER_EVENT_PAYLOADS, type ClientToServerEvents } from "@berth/protocol";
import type { BerthServerSocket } from "../sockets/socket-server";
import { FORWARD_MARKER_HEADER, type ForwardMarker } from "./forward-marker";
import type { ForwardTarget, ForwardToOwner, SessionOwner } from "./forward-to-owner";

/** The socket.io path: a relay's handshake is signed for it (forward-marker.ts). */
const SOCKET_PATH = "/socket.io/";
const CONNECT_TIMEOUT_MS = 5_000;

/** Server → client events a relay carries back: the ones the owner emits to one socket (rooms cross by Redis). */
const RELAYED_BACK = ["run:started", "terminal:output", "terminal:exit"] as const;

type Handler = (payload: unknown) => Promise<unknown>;

/** The session an event needs, read from its payload (a terminal's from what this runner has seen of it). */
const TARGETS: Partial<Record<keyof ClientToServerEvents, (payload: Record<string, unknown>, terminals: Map<string, string>) => ForwardTarget | null>> = {
  "tool:call": (p) => session(p.sessionId),
  "terminal:open": (p) => session(p.sessionId),
  "terminal:list": (p) => session(p.sessionId),
  "terminal:attach": (p, t) => terminal(p.terminalId, t),
  "terminal:input": (p, t) => terminal(p.terminalId, t),
  "terminal:resize": (p, t) => terminal(p.terminalId, t),
  "terminal:rename": (p, t) => terminal(p.terminalId, t),
  "terminal:close": (p, t) => terminal(p.terminalId, t),
  "run:cancel": (p) => (typeof p.runId === "string" ? { kind: "run", id: p.runId } : null),
};

function session(id: unknown): ForwardTarget | null {
  return typeof id === "string" && id ? { kind: "session", id } : null;
}

function terminal(id: unknown, terminals: Map<string, string>): ForwardTarget | null {
  const sessionId = typeof id === "string" ? terminals.get(id) : undefined;
  return sessionId ? { kind: "session", id: sessionId } : null;
}

/**
 * Socket events that need a session's owner (tool:call, terminal:*, run:cancel), when the client's socket is
 * on another runner: they go to the owner over a socket.io connection this runner opens for that client,
 * with the client's own credential (the owner authenticates it as a direct connection, so a browser sign-in
 * stays a person at the keyboard and the call is recorded as the socket's), acks coming back as the owner
 * answered. What the owner emits to that connection (run:started, terminal output with its acks, which are
 * the terminal's flow control, and terminal:exit) goes on to the client.
 */
export class OwnerSocketRelay {
  /** terminalId → sessionId, from the terminals relayed replies named (an IDE lists its terminals on connect). */
  private readonly terminals = new Map<string, string>();

  constructor(
    private readonly forward: ForwardToOwner,
    private readonly marker: ForwardMarker,
  ) {}

  /** The handler for `event` on `socket`: forwarded when the owner is another runner, else `local`. */
  wrap(socket: BerthServerSocket, event: keyof ClientToServerEvents, local: Handler): Handler {
    const targetOf = TARGETS[event];
    if (!targetOf) return local;
    return async (payload) => {
      const fields = typeof payload === "object" && payload !== null ? (payload as Record<string, unknown>) : {};
      const found = await this.forward.ownerFor(targetOf(fields, this.terminals), this.markerOf(socket), SOCKET_PATH);
      if (!found) return this.learn(await local(payload));
      return this.learn(await this.relayOf(socket).call(found.owner, found.sessionId, event, payload));
    };
  }

  private markerOf(socket: BerthServerSocket): string | undefined {
    const value = socket.handshake.headers[FORWARD_MARKER_HEADER];
    return typeof value === "string" ? value : undefined;
  }

  /** Remembers which session a terminal in a reply belongs to, so its later events find the owner. */
  private learn<T>(result: T): T {
    const infos = (result as { terminals?: unknown } | null)?.terminals;
    for (const info of Array.isArray(infos) ? infos : [result]) {
      const { terminalId, sessionId } = (info ?? {}) as { terminalId?: unknown; sessionId?: unknown };
      if (typeof terminalId === "string" && typeof sessionId === "string") this.terminals.set(terminalId, sessionId);
    }
    return result;
  }

  private readonly relays = new WeakMap<BerthServerSocket, ClientRelay>();

  private relayOf(socket: BerthServerSocket): ClientRelay {
    let relay = this.relays.get(socket);
    if (!relay) {
      relay = new ClientRelay(socket, this.marker);
      this.relays.set(socket, relay);
      socket.on("disconnect", () => relay!.close());
    }
    return relay;
  }
}

/** One client socket's connections to the owners of the sessions it drives, one per owner runner. */
class ClientRelay {
  private readonly owners = new Map<string, Promise<ClientSocket>>();
  private closed = false;

  constructor(
    private readonly client: BerthServerSocket,
    private readonly marker: ForwardMarker,
  ) {}

  async call(owner: SessionOwner, sessionId: string, event: string, payload: unknown): Promise<unknown> {
    const upstream = await this.connection(owner, sessionId);
    // A socket.io client buffers what is emitted while it is disconnected: to a dead owner that is an answer never given.
    if (!upstream.connected) throw unreachable(owner, sessionId, "the connection to it has closed");
    return new Promise((resolve, reject) => {
      const lost = () => reject(unreachable(owner, sessionId, "the connection to it closed before it answered"));
      upstream.once("disconnect", lost);
      upstream.emit(event, payload, (error: { code?: unknown; message?: unknown } | null, result?: unknown) => {
        upstream.off("disconnect", lost);
        if (!error) return resolve(result);
        // The owner's refusal as it gave it (it has already kept its 5xx details to itself).
        const code = ErrorCodeSchema.safeParse(error.code);
        const message = typeof error.message === "string" ? error.message : "the owner runner refused the event";
        reject(new AppError({ code: code.success ? code.data : "internal", message, userMessage: message }));
      });
    });
  }

  close(): void {
    this.closed = true;
    for (const pending of this.owners.values()) void pending.then((upstream) => upstream.disconnect(), () => undefined);
    this.owners.clear();
  }

  private connection(owner: SessionOwner, sessionId: string): Promise<ClientSocket> {
    const key = `${owner.runnerId} ${owner.url}`;
    let pending = this.owners.get(key);
    if (!pending) {
      pending = this.open(owner, sessionId);
      this.owners.set(key, pending);
      pending.catch(() => this.owners.delete(key));
    }
    return pending;
  }

  private open(owner: SessionOwner, sessionId: string): Promise<ClientSocket> {
    if (this.closed) return Promise.reject(unreachable(owner, sessionId, "the client has gone"));
    const { headers, auth } = this.client.handshake;
    const passed: Record<string, string> = { [FORWARD_MARKER_HEADER]: this.marker.sign(SOCKET_PATH) };
    // The client's credential and origin, as it presented them; Host is the owner's own.
    for (const name of ["authorization", "cookie", "origin", "user-agent"]) {
      const value = headers[name];
      if (typeof value === "string") passed[name] = value;
    }
    if (headers.host) passed["x-forwarded-host"] = headers.host;
    const token = typeof auth?.token === "string" ? auth.token : undefined;
    const upstream = connect(owner.url, {
      path: SOCKET_PATH,
      transports: ["websocket"],
      forceNew: true,
      reconnection: false,
      timeout: CONNECT_TIMEOUT_MS,
      extraHeaders: passed,
      ...(token ? { auth: { token } } : {}),
    });
    for (const event of RELAYED_BACK) {
      upstream.on(event, (...received: unknown[]) => {
        const parsed = SERVER_EVENT_PAYLOADS[event].safeParse(received[0]);
        if (!parsed.success) return;
        const ack = received[1];
        // terminal:output's ack goes back to the owner when the client took the chunk: its window holds end to end.
        if (typeof ack === "function") (this.client.emit as (e: string, p: unknown, a: () => void) => void)(event, received[0], () => (ack as () => void)());
        else (this.client.emit as (e: string, p: unknown) => void)(event, received[0]);
      });
    }
    return new Promise((resolve, reject) => {
      upstream.once("connect", () => {
        // The owner went away (killed, or it revoked the credential): a client following a terminal through
        // it reconnects and attaches again from its offset, wherever the session is then. Closed as a lost
        // transport, which a socket.io client reconnects from by itself; after a server-side disconnect() it would
        // wait for someone to call connect() (a revoked credential is refused at that reconnect's handshake).
        upstream.once("disconnect", (reason) => {
          if (this.closed || reason === "io client disconnect") return;
          this.owners.delete(`${owner.runnerId} ${owner.url}`);
          this.client.conn.close();
        });
        resolve(upstream);
      });
      upstream.once("connect_error", (error) => {
        upstream.close();
        reject(unreachable(owner, sessionId, error.message));
      });
    });
  }
}

function unreachable(owner: SessionOwner, sessionId: string, why: string): AppError {
  const message = `Session ${sessionId} is held by runner ${owner.runnerId}, which cannot be reached (${why}); retry once it is back or another runner has adopted the session`;
  return new AppError({ code: "sandbox_unavailable", message, userMessage: message });
}
