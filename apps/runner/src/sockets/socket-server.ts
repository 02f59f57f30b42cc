import type http from "node:http";
import { Server, type Socket } from "socket.io";
import { z } from "zod";
import type { Database } from "@berth/db";
import type { ApprovalRequest, ToolResult } from "@berth/protocol";
import { AppError } from "@berth/protocol";
import { authenticate, tokenFromHeaders, type Principal } from "../auth/tokens";
import type { RunnerEvents, RunnerEventMap } from "../events/runner-events";
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
  const joined = new Set<string>();
  const cleanups: (() => void)[] = [];
  const listen = <K extends keyof RunnerEventMap>(event: K, listener: (...args: RunnerEventMap[K]) => void) => {
    deps.events.on(event, listener as never);
    const off = () => deps.events.off(event, listener as never);
    cleanups.push(off);
    return off;
  };

  // Session-scoped events reach sockets that joined the session.
  for (const event of ["file:changed", "session:status", "process:status"] as const) {
    listen(event, (payload: { sessionId: string }) => {
      if (joined.has(payload.sessionId)) socket.emit(event, payload);
    });
  }
  let watchRuns = false;
  listen("run:status", (payload) => {
    if (watchRuns || joined.has(payload.sessionId)) socket.emit("run:status", payload);
  });

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
    joined.add(session.id);
    return { sessionId: session.id, status: session.status };
  });

  on("session:leave", async (payload) => {
    joined.delete(SessionRefSchema.parse(payload).sessionId);
    return { ok: true };
  });

  on("tool:call", async (payload) => {
    const input = ToolCallSchema.parse(payload);
    const outcome = await deps.tools.call({ sessionId: input.sessionId, principal, tool: input.tool, args: input.args ?? {}, caller: "user", via: "socket" });
    if (outcome.kind === "parked") return { status: "parked", approvalId: outcome.approvalId, text: outcome.text, sha256: outcome.sha256 };
    return outcome.result satisfies ToolResult;
  });

  on("runs:subscribe", async () => {
    watchRuns = true;
    return { ok: true };
  });

  on("process:subscribe", async (payload) => {
    const input = ProcessSubscribeSchema.parse(payload);
    await deps.sessions.get(input.sessionId, principal);
    const run = await deps.db.run.findFirst({ where: { sessionId: input.sessionId, kind: "process", detailsJson: { contains: input.processId } } });
    if (!run) throw new AppError({ code: "not_found", message: `Unknown processId: ${input.processId}` });
    const sent = replay(socket, deps.dataDir, run.id, "combined", input.offset, (offset, data) =>
      socket.emit("process:output", { sessionId: input.sessionId, processId: input.processId, stream: "combined", offset, data }),
    );
    listen("process:output", (event) => {
      if (event.processId === input.processId && event.offset >= sent) socket.emit("process:output", event);
    });
    return { processId: input.processId, runId: run.id, offset: sent, status: run.status };
  });

  on("run:subscribe", async (payload) => {
    const input = RunSubscribeSchema.parse(payload);
    const run = await deps.db.run.findUnique({ where: { id: input.runId } });
    if (!run) throw new AppError({ code: "not_found", message: `Run not found: ${input.runId}` });
    await deps.sessions.get(run.sessionId, principal);
    const offsets = typeof input.offset === "number" ? { stdout: input.offset, stderr: input.offset } : input.offset;
    const sent = {
      stdout: replay(socket, deps.dataDir, run.id, "stdout", offsets.stdout, (offset, data) => socket.emit("run:output", { runId: run.id, stream: "stdout", offset, data })),
      stderr: replay(socket, deps.dataDir, run.id, "stderr", offsets.stderr, (offset, data) => socket.emit("run:output", { runId: run.id, stream: "stderr", offset, data })),
    };
    listen("run:output", (event) => {
      if (event.runId === run.id && event.offset >= sent[event.stream]) socket.emit("run:output", { runId: event.runId, stream: event.stream, offset: event.offset, data: event.data });
    });
    const current = await deps.db.run.findUniqueOrThrow({ where: { id: run.id } });
    return { runId: run.id, offsets: sent, status: current.status, outcome: current.outcome, exitCode: current.exitCode };
  });

  on("approvals:subscribe", async () => {
    if (principal.role === "developer") throw new AppError({ code: "forbidden", message: "Approvals are for operators" });
    for (const event of ["approval:created", "approval:decided"] as const) {
      listen(event, (request: ApprovalRequest) => socket.emit(event, request));
    }
    return { ok: true };
  });

  socket.on("disconnect", () => {
    for (const cleanup of cleanups) cleanup();
  });
}

/**
 * Sends a log from `offset` to its current end and returns that end. Synchronous on purpose: no live
 * chunk can be appended between the read and the caller registering its live listener.
 */
function replay(_socket: Socket, dataDir: string, runId: string, stream: LogStream, offset: number, emit: (offset: number, data: string) => void): number {
  let position = offset;
  for (;;) {
    const { content, size } = readLog(dataDir, runId, stream, position, REPLAY_CHUNK);
    if (content.length === 0) return Math.max(position, Math.min(offset, size));
    emit(position, content.toString("utf8"));
    position += content.length;
  }
}
