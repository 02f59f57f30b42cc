import type http from "node:http";
import { Server, type Socket } from "socket.io";
import { z } from "zod";
import type { Database } from "@berth/db";
import type { ToolResult } from "@berth/protocol";
import { AppError } from "@berth/protocol";
import { authenticate, tokenFromHeaders, type Principal } from "../auth/tokens";
import type { RunnerEvents } from "../events/runner-events";
import { readLog, type LogStream } from "../runs/run-logs";
import type { SessionService } from "../sessions/session-service";
import type { ToolService } from "../tools/tool-service";
import { formatIssues } from "../tools/tool-service";

type Ack = (error: { code: string; message: string } | null, result?: unknown) => void;

const SessionRefSchema = z.object({ sessionId: z.string().min(1) });
const ToolCallSchema = z.object({ sessionId: z.string().min(1), tool: z.string().min(1), args: z.unknown().optional() });
const Offset = z.number().int().min(0);
const ProcessSubscribeSchema = z.object({ sessionId: z.string().min(1), processId: z.string().min(1), offset: Offset.default(0) });
const RunSubscribeSchema = z.object({
  runId: z.string().min(1),
  /** One offset for both streams (0 = from the start), or one per stream. */
  offset: z.union([Offset, z.object({ stdout: Offset.default(0), stderr: Offset.default(0) })]).default(0),
});

/** Replays in bounded chunks, so a reconnect never sends one giant frame. */
const REPLAY_CHUNK = 256 * 1024;

interface SocketData {
  principal: Principal;
}

/**
 * socket.io on the runner's HTTP server: the same token as REST (auth.token or the web app's cookie),
 * every event validated. Output events carry byte offsets; a (re)subscribe replays from the client's
 * offset and then follows live, in one synchronous step, so there is no gap and no duplicate.
 */
export function createSocketServer(
  server: http.Server,
  deps: { db: Database; events: RunnerEvents; sessions: SessionService; tools: ToolService; dataDir: string; webOrigin: string },
): Server {
  const io = new Server(server, {
    path: "/socket.io",
    // Browsers come through the web app's origin (proxied); a direct connection is allowed only from it.
    cors: { origin: deps.webOrigin, credentials: true },
    maxHttpBufferSize: 12 * 1024 * 1024,
  });

  io.use((socket, next) => {
    const token = (typeof socket.handshake.auth?.token === "string" ? socket.handshake.auth.token : null) ?? tokenFromHeaders(socket.handshake.headers);
    if (!token) return next(new Error("unauthorized: missing token"));
    authenticate(deps.db, token).then(
      (principal) => {
        if (!principal) return next(new Error("unauthorized: invalid or revoked token"));
        (socket.data as SocketData).principal = principal;
        next();
      },
      (error: unknown) => next(error instanceof Error ? error : new Error(String(error))),
    );
  });

  // Fan-out through rooms: socket.io encodes a broadcast packet once for all its sockets (and the
  // Redis adapter carries rooms across runners), instead of once per listening socket.
  deps.events.on("run:output", (e) => io.to(`run:${e.runId}`).emit("run:output", { runId: e.runId, stream: e.stream, offset: e.offset, data: e.data }));
  deps.events.on("process:output", (e) => io.to(`process:${e.processId}`).emit("process:output", e));
  for (const event of ["file:changed", "session:status", "process:status"] as const) {
    deps.events.on(event, (payload: { sessionId: string }) => io.to(`session:${payload.sessionId}`).emit(event, payload));
  }
  deps.events.on("run:status", (payload) => io.to(`session:${payload.sessionId}`).to("runs").emit("run:status", payload));
  deps.events.on("approval:created", (request) => io.to("approvals").emit("approval:created", request));
  deps.events.on("approval:decided", (request) => io.to("approvals").emit("approval:decided", request));

  io.on("connection", (socket) => handleConnection(socket, deps));
  return io;
}

function reply(ack: unknown, error: unknown, result?: unknown): void {
  if (typeof ack !== "function") return;
  const fn = ack as Ack;
  if (error === null) return fn(null, result);
  if (AppError.isInstance(error)) return fn({ code: error.code, message: error.status >= 500 ? "Internal error" : error.message });
  if (error instanceof z.ZodError) return fn({ code: "bad_request", message: formatIssues(error) });
  return fn({ code: "internal", message: "Internal error" });
}

function handleConnection(socket: Socket, deps: Parameters<typeof createSocketServer>[1]): void {
  const principal = (socket.data as SocketData).principal;

  const on = (event: string, handler: (payload: unknown) => Promise<unknown>) => {
    socket.on(event, (payload: unknown, ack: unknown) => {
      handler(payload).then(
        (result) => reply(ack, null, result),
        (error: unknown) => reply(ack, error),
      );
    });
  };

  on("session:join", async (payload) => {
    const { sessionId } = SessionRefSchema.parse(payload);
    const session = await deps.sessions.get(sessionId, principal);
    await socket.join(`session:${session.id}`);
    return { sessionId: session.id, status: session.status };
  });

  on("session:leave", async (payload) => {
    await socket.leave(`session:${SessionRefSchema.parse(payload).sessionId}`);
    return { ok: true };
  });

  on("tool:call", async (payload) => {
    const input = ToolCallSchema.parse(payload);
    const outcome = await deps.tools.call({ sessionId: input.sessionId, principal, tool: input.tool, args: input.args ?? {}, caller: "user", via: "socket" });
    if (outcome.kind === "parked") return { status: "parked", approvalId: outcome.approvalId, text: outcome.text, sha256: outcome.sha256 };
    return outcome.result satisfies ToolResult;
  });

  on("runs:subscribe", async () => {
    await socket.join("runs");
    return { ok: true };
  });

  on("process:subscribe", async (payload) => {
    const input = ProcessSubscribeSchema.parse(payload);
    await deps.sessions.get(input.sessionId, principal);
    const run = await deps.db.run.findFirst({ where: { sessionId: input.sessionId, kind: "process", detailsJson: { contains: input.processId } } });
    if (!run) throw new AppError({ code: "not_found", message: `Unknown processId: ${input.processId}` });
    // Replay and join in one synchronous step: live chunks start exactly where the replay ends.
    const sent = replay(deps.dataDir, run.id, "combined", input.offset, (offset, data) =>
      socket.emit("process:output", { sessionId: input.sessionId, processId: input.processId, stream: "combined", offset, data }),
    );
    void socket.join(`process:${input.processId}`);
    return { processId: input.processId, runId: run.id, offset: sent, status: run.status };
  });

  on("run:subscribe", async (payload) => {
    const input = RunSubscribeSchema.parse(payload);
    const run = await deps.db.run.findUnique({ where: { id: input.runId } });
    if (!run) throw new AppError({ code: "not_found", message: `Run not found: ${input.runId}` });
    await deps.sessions.get(run.sessionId, principal);
    const offsets = typeof input.offset === "number" ? { stdout: input.offset, stderr: input.offset } : input.offset;
    const sent = {
      stdout: replay(deps.dataDir, run.id, "stdout", offsets.stdout, (offset, data) => socket.emit("run:output", { runId: run.id, stream: "stdout", offset, data })),
      stderr: replay(deps.dataDir, run.id, "stderr", offsets.stderr, (offset, data) => socket.emit("run:output", { runId: run.id, stream: "stderr", offset, data })),
    };
    void socket.join(`run:${run.id}`);
    const current = await deps.db.run.findUniqueOrThrow({ where: { id: run.id } });
    return { runId: run.id, offsets: sent, status: current.status, outcome: current.outcome, exitCode: current.exitCode };
  });

  on("approvals:subscribe", async () => {
    if (principal.role === "developer") throw new AppError({ code: "forbidden", message: "Approvals are for operators" });
    await socket.join("approvals");
    return { ok: true };
  });
}

/**
 * Sends a log from `offset` to its current end and returns that end. Synchronous on purpose: no live
 * chunk can be appended between the read and the caller registering its live listener.
 */
function replay(dataDir: string, runId: string, stream: LogStream, offset: number, emit: (offset: number, data: string) => void): number {
  let position = offset;
  for (;;) {
    const { content, size } = readLog(dataDir, runId, stream, position, REPLAY_CHUNK);
    if (content.length === 0) return Math.max(position, Math.min(offset, size));
    emit(position, content.toString("utf8"));
    position += content.length;
  }
}
