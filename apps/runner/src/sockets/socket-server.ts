import type http from "node:http";
import { Server, type ServerOptions, type Socket } from "socket.io";
import { z } from "zod";
import type { Repositories } from "@berth/db";
import {
  AppError,
  ProcessSubscribeSchema,
  RunCancelRequestSchema,
  RunSubscribeSchema,
  SessionRefSchema,
  ToolCallEventSchema,
  type ClientEventResult,
  type OutputEncoding,
  type ClientToServerEvents,
  type ServerToClientEvents,
  type ToolResult,
} from "@berth/protocol";
import type { Principal } from "../auth/tokens";
import { callerOf, type BrowserSessions } from "../auth/browser-sessions";
import type { TokenAuthenticator } from "../auth/api-tokens";
import { createRequestAuthenticator } from "../auth/authenticate-request";
import type { CredentialRevocation } from "../auth/credential-revocation";
import { allowSocketRequest, type HostAllowList } from "../http/request-guard";
import { authorize } from "../auth/authorize";
import type { RunnerEvents } from "../events/runner-events";
import { SessionOwners, ownApprovalsRoom, ownRunsRoom } from "./session-owners";
import type { LogStream } from "../runs/run-logs";
import type { RunLogStore } from "../cluster/run-log-store";
import { LogFanOut, type OutputTarget } from "./log-fan-out";
import { corkFlushes } from "./cork-flushes";
import type { LogFollower, OutputPayload } from "./log-follower";
import { registerTerminalEvents, type TerminalService } from "../terminals";
import { cancelRun, type CancelRunDeps } from "../runs/cancel-run";
import type { SessionService } from "../sessions/session-service";
import type { ToolService } from "../tools/tool-service";
import { formatIssues } from "@berth/protocol";
import { loneSurrogateIssue } from "../http/validate";
import type { OwnerSocketRelay } from "../cluster/owner-socket-relay";

type Ack = (error: { code: string; message: string } | null, result?: unknown) => void;

interface SocketData {
  principal: Principal;
}

/** The runner's end of the one event map (packages/protocol socket-events.ts). */
export type BerthServer = Server<ClientToServerEvents, ServerToClientEvents, Record<string, never>, SocketData>;
export type BerthServerSocket = Socket<ClientToServerEvents, ServerToClientEvents, Record<string, never>, SocketData>;
/**
 * Registers a client → server event whose payload the handler safeParses; the result or error goes back
 * through the event's ack, whose result type the map fixes.
 */
export type OnClientEvent = <E extends keyof ClientToServerEvents>(event: E, handler: (payload: unknown) => Promise<ClientEventResult<E>>) => void;

/**
 * socket.io on the runner's HTTP server: the same token as REST (auth.token or the web app's cookie),
 * every event validated. Output events carry byte offsets; a (re)subscribe replays from the client's
 * offset and then follows live, in one synchronous step, so there is no gap and no duplicate.
 */
export function createSocketServer(
  server: http.Server,
  deps: {
    repos: Repositories;
    /** Browser sign-ins: their cookie makes a `browser` principal; auth.token and Bearer are API tokens. */
    browserSessions?: BrowserSessions;
    apiTokens: TokenAuthenticator;
    events: RunnerEvents;
    sessions: SessionService;
    tools: ToolService;
    dataDir: string;
    webOrigin: string;
    /** Host/Origin allow-list, checked on every handshake and WebSocket upgrade. */
    hosts: HostAllowList;
    /** Sockets join their credential's and user's rooms, so revoking either ends them at once. */
    revocation: CredentialRevocation;
    /** run:cancel, the IDE's Stop. */
    cancel: CancelRunDeps;
    /** terminal:* events (docs/api.md "Terminals"). */
    terminals?: TerminalService;
    /** Where a followed log's chunks come from when another runner writes it (the database log store). */
    logs?: Pick<RunLogStore, "ready">;
    /** Several runners: the Redis adapter, so rooms and disconnectSockets reach every runner's sockets. */
    adapter?: ServerOptions["adapter"];
    /** Several runners: events for another runner's session go to it (cluster/owner-socket-relay.ts). */
    relay?: Pick<OwnerSocketRelay, "wrap">;
  },
): BerthServer {
  const io: BerthServer = new Server(server, {
    path: "/socket.io",
    ...(deps.adapter ? { adapter: deps.adapter } : {}),
    // Browsers come through the web app's origin (proxied); a direct connection is allowed only from it.
    cors: { origin: deps.webOrigin, credentials: true },
    // `cors` does not cover a WebSocket upgrade (a foreign page's socket carries the cookie): this does.
    allowRequest: allowSocketRequest(deps.hosts),
    maxHttpBufferSize: 12 * 1024 * 1024,
    // Port previews answer their upgrades after a connection inside the container (often over 1 s); the
    // upgrade listener in ports/register-port-routes.ts closes upgrades that neither serves.
    destroyUpgrade: false,
  });

  const authenticateRequest = createRequestAuthenticator(deps.apiTokens, deps.browserSessions);
  io.use((socket, next) => {
    const socketToken = typeof socket.handshake.auth?.token === "string" ? socket.handshake.auth.token : undefined;
    authenticateRequest({ ...socket.handshake.headers, socketToken }).then(
      ({ principal, presented }) => {
        if (!principal) return next(new Error(presented ? "unauthorized: invalid, expired or revoked credential" : "unauthorized: missing token"));
        (socket.data as SocketData).principal = principal;
        deps.revocation.track(socket, principal).then(
          () => next(),
          (error: unknown) => next(error instanceof Error ? error : new Error(String(error))),
        );
      },
      (error: unknown) => next(error instanceof Error ? error : new Error(String(error))),
    );
  });

  const followers: Followers = new Map();
  // Fan-out through rooms: socket.io encodes a broadcast packet once for all its sockets (and the
  // Redis adapter carries rooms across runners), instead of once per listening socket.
  // Log output too, to the room of a log's caught-up followers, with backpressure (LogFanOut).
  deps.events.on("run:output", (e) => followers.get(`run:${e.runId}:${e.stream}`)?.push(e.offset, e.data, e.bytes, e.raw));
  deps.events.on("process:output", (e) => followers.get(`process:${e.sessionId}:${e.processId}`)?.push(e.offset, e.data, e.bytes, e.raw));
  deps.events.on("file:changed", (payload) => io.to(`session:${payload.sessionId}`).emit("file:changed", payload));
  deps.events.on("session:status", (payload) => io.to(`session:${payload.sessionId}`).emit("session:status", payload));
  deps.events.on("process:status", (payload) => io.to(`session:${payload.sessionId}`).emit("process:status", payload));
  // Live events go to whoever may see them (docs/api.md, Roles: liveEvents): the session's room and the
  // "any" rooms at once, and the owner's own room once the session's owner is known (the same socket is
  // not sent an event twice).
  const owners = new SessionOwners(deps.repos.sessions);
  const toOwner = <E extends keyof ServerToClientEvents>(sessionId: string, room: (ownerId: string) => string, except: string[], event: E, ...payload: Parameters<ServerToClientEvents[E]>) => {
    owners.of(sessionId).then(
      (ownerId) => ownerId && io.to(room(ownerId)).except(except).emit(event, ...payload),
      () => undefined,
    );
  };
  deps.events.on("run:status", (payload) => {
    io.to(`session:${payload.sessionId}`).to("runs").emit("run:status", payload);
    toOwner(payload.sessionId, ownRunsRoom, [`session:${payload.sessionId}`, "runs"], "run:status", payload);
  });
  for (const event of ["approval:created", "approval:decided"] as const) {
    deps.events.on(event, (request) => {
      io.to("approvals").emit(event, request);
      toOwner(request.sessionId, ownApprovalsRoom, ["approvals"], event, request);
    });
  }

  io.on("connection", (socket) => {
    corkFlushes(socket);
    handleConnection(io, socket, deps, followers);
  });
  deps.revocation.attach(io);
  return io;
}

function reply(ack: unknown, error: unknown, result?: unknown): void {
  if (typeof ack !== "function") return;
  const fn = ack as Ack;
  if (error === null) return fn(null, result);
  if (AppError.isInstance(error)) return fn({ code: error.code, message: error.status >= 500 ? (error.userMessage ?? "Internal error") : error.message });
  if (error instanceof z.ZodError) return fn({ code: "bad_request", message: formatIssues(error) });
  return fn({ code: "internal", message: "Internal error" });
}

/**
 * Each followed log's fan-out, by key: `run:<runId>:<stream>`, `process:<sessionId>:<processId>` (a processId
 * comes from the container, so it is only unique within its session).
 */
type Followers = Map<string, LogFanOut>;

function handleConnection(io: BerthServer, socket: BerthServerSocket, deps: Parameters<typeof createSocketServer>[1], followers: Followers): void {
  const principal = socket.data.principal;
  const mine = new Map<string, LogFollower>();
  const unfollow = (key: string) => {
    const fanOut = followers.get(key);
    const follower = mine.get(key);
    if (!fanOut || !follower) return;
    fanOut.unfollow(follower);
    mine.delete(key);
    if (fanOut.size === 0) followers.delete(key);
  };
  /**
   * Starts following a log from `offset`: replay from disk, then live, in one synchronous step. `send` is the
   * log's event, to one socket or to its room (the same payload for every follower of the log).
   */
  const follow = (
    key: string,
    source: { runId: string; stream: LogStream },
    offset: number,
    encoding: OutputEncoding,
    send: (to: OutputTarget, offset: number, data: OutputPayload) => void,
  ): number => {
    // A second subscribe to the same log replaces the first (a client re-subscribing after a gap).
    unfollow(key);
    let fanOut = followers.get(key);
    if (!fanOut) followers.set(key, (fanOut = new LogFanOut(io, key, { dataDir: deps.dataDir, ...source }, send)));
    const { follower, sent } = fanOut.follow(socket, offset, encoding);
    mine.set(key, follower);
    return sent;
  };
  socket.on("disconnect", () => {
    for (const key of [...mine.keys()]) unfollow(key);
  });

  const on: OnClientEvent = (event, local) => {
    const handler = deps.relay ? deps.relay.wrap(socket, event, local) : local;
    // socket.io's typed `on` cannot see through the generic event name; the listener takes whatever came.
    socket.on(event, ((...received: unknown[]) => {
      // An event sent with only an ack (`emit(event, ack)`) still gets its answer through that ack.
      const ack = received.at(-1);
      const payload = received.length > 1 || typeof ack !== "function" ? received[0] : undefined;
      const surrogate = loneSurrogateIssue(payload);
      (surrogate ? Promise.reject(new AppError({ code: "bad_request", message: `Invalid ${event} payload: ${surrogate}` })) : handler(payload)).then(
        (result) => reply(ack, null, result),
        (error: unknown) => reply(ack, error),
      );
    }) as Parameters<typeof socket.on<typeof event>>[1]);
  };

  if (deps.terminals) registerTerminalEvents(socket, principal, deps.terminals, on);

  on("session:join", async (payload) => {
    const { sessionId } = SessionRefSchema.parse(payload);
    const session = await deps.sessions.get(sessionId, principal);
    await socket.join(`session:${session.id}`);
    return { sessionId: session.id, status: session.status };
  });

  on("session:leave", async (payload) => {
    await socket.leave(`session:${SessionRefSchema.parse(payload).sessionId}`);
    return { ok: true as const };
  });

  on("tool:call", async (payload) => {
    const input = ToolCallEventSchema.parse(payload);
    const outcome = await deps.tools.call({
      sessionId: input.sessionId,
      principal,
      tool: input.tool,
      args: input.args ?? {},
      caller: callerOf(principal),
      via: "socket",
      onRunStarted: (runId) => socket.emit("run:started", { callId: input.callId ?? null, runId, sessionId: input.sessionId }),
    });
    if (outcome.kind === "parked") return { status: "parked" as const, approvalId: outcome.approvalId, text: outcome.text, sha256: outcome.sha256 };
    return outcome.result satisfies ToolResult;
  });

  on("runs:subscribe", async () => {
    const scope = authorize(principal, "liveEvents", "runs:subscribe");
    await socket.join(scope === "any" ? "runs" : ownRunsRoom(principal.userId));
    return { ok: true as const, scope };
  });

  on("process:subscribe", async (payload) => {
    const input = ProcessSubscribeSchema.parse(payload);
    const session = await deps.sessions.get(input.sessionId, principal);
    const run = await deps.repos.runs.findProcessRun(input.sessionId, input.processId);
    if (!run) throw new AppError({ code: "not_found", message: `Unknown processId: ${input.processId}` });
    authorize(principal, "run", "logs", { id: run.id, ownerId: session.ownerId });
    // Before following: this runner's files hold the log, and its chunks reach this runner's fan-out.
    await deps.logs?.ready(run);
    const sent = follow(`process:${input.sessionId}:${input.processId}`, { runId: run.id, stream: "combined" }, input.offset, input.encoding, (to, offset, data) =>
      to.emit("process:output", { sessionId: input.sessionId, processId: input.processId, stream: "combined", offset, data }),
    );
    return { processId: input.processId, runId: run.id, offset: sent, status: run.status };
  });

  // The IDE's Stop: aborts a running run (docs/api.md); the ack's error is a conflict when it is not running.
  on("run:cancel", async (payload) => cancelRun(deps.cancel, RunCancelRequestSchema.parse(payload).runId, principal, "socket"));

  on("run:subscribe", async (payload) => {
    const input = RunSubscribeSchema.parse(payload);
    const run = await deps.repos.runs.get(input.runId);
    if (!run) throw new AppError({ code: "not_found", message: `Run not found: ${input.runId}` });
    await deps.sessions.get(run.sessionId, principal, (session) => authorize(principal, "run", "logs", { id: run.id, ownerId: session.ownerId }));
    await deps.logs?.ready(run);
    const offsets = typeof input.offset === "number" ? { stdout: input.offset, stderr: input.offset } : input.offset;
    const sent = {
      stdout: follow(`run:${run.id}:stdout`, { runId: run.id, stream: "stdout" }, offsets.stdout, input.encoding, (to, offset, data) =>
        to.emit("run:output", { runId: run.id, stream: "stdout", offset, data }),
      ),
      stderr: follow(`run:${run.id}:stderr`, { runId: run.id, stream: "stderr" }, offsets.stderr, input.encoding, (to, offset, data) =>
        to.emit("run:output", { runId: run.id, stream: "stderr", offset, data }),
      ),
    };
    const current = (await deps.repos.runs.get(run.id)) ?? run;
    return { runId: run.id, offsets: sent, status: current.status, outcome: current.outcome, exitCode: current.exitCode };
  });

  on("approvals:subscribe", async () => {
    const scope = authorize(principal, "liveEvents", "approvals:subscribe");
    await socket.join(scope === "any" ? "approvals" : ownApprovalsRoom(principal.userId));
    return { ok: true as const, scope };
  });
}
