"use client";
import { io, type Socket } from "socket.io-client";
import { useEffect, useState } from "react";
import type { RunCancelRequest, RunCancelResult } from "@berth/protocol";
import type { TerminalInfo } from "@berth/protocol";
import { ApiError, callTool, type ApprovalRequest, type LogStream, type Parked, type ToolResult } from "./api";

/** Server → client events (docs/api.md "socket.io"); payload fields beyond the spec are optional. */
export type RunOutputEvent = { runId: string; stream: LogStream; offset: number; data: string };
export type RunStatusEvent = { runId: string; sessionId?: string; status: string; outcome?: string | null; exitCode?: number | null; tool?: string };
export type ProcessOutputEvent = { sessionId: string; processId: string; stream?: string; offset: number; data: string };
export type ProcessStatusEvent = { sessionId: string; processId: string; status: string; exitCode?: number | null };
export type FileChangedEvent = { sessionId: string; path: string; kind?: string };
export type SessionStatusEvent = { sessionId: string; status: string; terminationCause?: string | null; autonomy?: string; autonomyChangedBy?: string };
/** Sent to the calling socket as soon as a tool:call's run exists (its callId is the client's). */
export type RunStartedEvent = { callId: string | null; runId: string; sessionId: string };
/** `data` arrives as binary; the ack tells the runner the chunk was taken (its flow control). */
export type TerminalOutputEvent = { terminalId: string; offset: number; data: ArrayBuffer | Uint8Array };
export type TerminalExitEvent = { terminalId: string; exitCode: number | null };
type SocketAck<T> = (err: { code: string; message: string } | null, result?: T) => void;

export interface ServerToClientEvents {
  "run:output": (event: RunOutputEvent) => void;
  "run:status": (event: RunStatusEvent) => void;
  "run:started": (event: RunStartedEvent) => void;
  "process:output": (event: ProcessOutputEvent) => void;
  "process:status": (event: ProcessStatusEvent) => void;
  "file:changed": (event: FileChangedEvent) => void;
  "session:status": (event: SessionStatusEvent) => void;
  "approval:created": (event: ApprovalRequest) => void;
  "approval:decided": (event: ApprovalRequest) => void;
  "terminal:output": (event: TerminalOutputEvent, ack: () => void) => void;
  "terminal:exit": (event: TerminalExitEvent) => void;
}

export interface ClientToServerEvents {
  "session:join": (payload: { sessionId: string }, ack?: (err: { code: string; message: string } | null, result?: { sessionId: string; status: string }) => void) => void;
  "session:leave": (payload: { sessionId: string }) => void;
  "tool:call": (payload: { sessionId: string; tool: string; args: unknown; callId?: string }, ack: (err: { code: string; message: string } | null, result?: ToolResult | Parked) => void) => void;
  "process:subscribe": (payload: { sessionId: string; processId: string; offset: number }) => void;
  "run:subscribe": (payload: { runId: string; offset: number | { stdout: number; stderr: number } }) => void;
  "runs:subscribe": () => void;
  "approvals:subscribe": () => void;
  /** The Stop button (docs/api.md): `err.code` is `conflict` when the run is not running. */
  "run:cancel": (payload: RunCancelRequest, ack: (err: { code: string; message: string } | null, result?: RunCancelResult) => void) => void;
  "terminal:open": (payload: { sessionId: string; cols: number; rows: number; name?: string }, ack: SocketAck<TerminalInfo>) => void;
  "terminal:list": (payload: { sessionId: string }, ack: SocketAck<{ terminals: TerminalInfo[] }>) => void;
  "terminal:attach": (payload: { terminalId: string; offset: number }, ack: SocketAck<TerminalInfo & { offset: number }>) => void;
  "terminal:input": (payload: { terminalId: string; data: string }, ack?: SocketAck<{ bytesWritten: number }>) => void;
  "terminal:resize": (payload: { terminalId: string; cols: number; rows: number }, ack?: SocketAck<TerminalInfo>) => void;
  "terminal:rename": (payload: { terminalId: string; name: string }, ack: SocketAck<TerminalInfo>) => void;
  "terminal:close": (payload: { terminalId: string }, ack: SocketAck<{ terminalId: string; closed: true }>) => void;
}

export type BerthSocket = Socket<ServerToClientEvents, ClientToServerEvents>;

let shared: BerthSocket | null = null;

/**
 * One socket per tab, same origin (server.mjs proxies /socket.io with websocket upgrades), authenticated
 * by the httpOnly cookie. Rooms and subscriptions are re-sent by their owners on every `connect`, so a
 * reconnect resumes from the offsets they hold.
 */
export function getSocket(): BerthSocket {
  if (!shared) {
    shared = io({ path: "/socket.io", withCredentials: true, transports: ["websocket", "polling"], reconnectionDelayMax: 3000 });
  }
  return shared;
}

/** Runs `onConnect` now if connected and after every (re)connect; returns the cleanup. */
export function onEveryConnect(socket: BerthSocket, onConnect: () => void): () => void {
  if (socket.connected) onConnect();
  socket.on("connect", onConnect);
  return () => {
    socket.off("connect", onConnect);
  };
}

/** "connecting" until the first connection or failure, then "live" or "reconnecting" (socket.io retries). */
export type SocketState = "connecting" | "live" | "reconnecting";

export function useSocketState(): SocketState {
  const [state, setState] = useState<SocketState>("connecting");
  useEffect(() => {
    const socket = getSocket();
    const live = () => setState("live");
    const lost = () => setState(socket.connected ? "live" : "reconnecting");
    if (socket.connected) live();
    socket.on("connect", live);
    socket.on("disconnect", lost);
    socket.on("connect_error", lost);
    return () => {
      socket.off("connect", live);
      socket.off("disconnect", lost);
      socket.off("connect_error", lost);
    };
  }, []);
  return state;
}

/**
 * A tool call over the socket: unlike REST, closing the tab does not abort it (a script keeps running
 * through a reload). A parked call is reported, then waited on over REST (lib/api.ts A5).
 */
export async function callToolLive(
  sessionId: string,
  tool: string,
  args: unknown,
  opts: { onParked?: (parked: Parked) => void; onRunStarted?: (runId: string) => void } = {},
): Promise<ToolResult> {
  const socket = getSocket();
  // The runner names the run as soon as it exists (run:started with our callId), long before the call answers.
  const callId = `call-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 10)}`;
  const onStarted = (event: RunStartedEvent) => {
    if (event.callId === callId) opts.onRunStarted?.(event.runId);
  };
  socket.on("run:started", onStarted);
  const answer = await new Promise<ToolResult | Parked>((resolve, reject) => {
    socket.emit("tool:call", { sessionId, tool, args, callId }, (err, result) => {
      if (err) reject(new ApiError(400, err.code, err.message));
      else if (!result) reject(new ApiError(500, "internal", "empty tool:call answer"));
      else resolve(result);
    });
  }).finally(() => socket.off("run:started", onStarted));
  if ((answer as Parked).status === "parked") return callTool(sessionId, tool, args, opts);
  return answer as ToolResult;
}

/** One socket request with an ack, as a promise (rejects with the runner's error). */
export function request<T>(send: (ack: SocketAck<T>) => void): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    send((err, result) => {
      if (err) reject(new ApiError(400, err.code, err.message));
      else resolve(result as T);
    });
  });
}
