"use client";
import { io, type Socket } from "socket.io-client";
import { useEffect, useState } from "react";
import { ToolCallAnswerSchema, type ClientToServerEvents, type RunStartedEvent, type ServerToClientEvents, type SocketAck, type ToolCallAnswer } from "@berth/protocol";
import { ApiError, callTool, parseAnswer, type Parked, type ToolResult } from "./api";

// The one event map (packages/protocol socket-events.ts, docs/api.md "socket.io"), shared with the runner.
export type {
  ClientToServerEvents,
  FileChangedEvent,
  ProcessOutputEvent,
  ProcessStatusEvent,
  RunOutputEvent,
  RunOutputWireEvent,
  RunStartedEvent,
  RunStatusEvent,
  ServerToClientEvents,
  SessionStatusEvent,
  TerminalExitEvent,
  TerminalOutputEvent,
} from "@berth/protocol";

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
 * through a reload). A parked call is reported, then waited on over REST (callTool).
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
  const answer = await new Promise<ToolCallAnswer>((resolve, reject) => {
    socket.emit("tool:call", { sessionId, tool, args, callId }, (err, result) => {
      if (err) return reject(new ApiError(400, err.code, err.message));
      // The ack crossed the network: it is what the map says only once it parses.
      try {
        resolve(parseAnswer(ToolCallAnswerSchema, result, "tool:call"));
      } catch (error) {
        reject(error as ApiError);
      }
    });
  }).finally(() => socket.off("run:started", onStarted));
  if ("status" in answer) return callTool(sessionId, tool, args, opts);
  return answer;
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
