"use client";
import { useEffect, useRef } from "react";
import { getSocket, onEveryConnect, type FileChangedEvent, type RunStatusEvent, type SessionStatusEvent } from "@/lib/socket";

type SessionLiveHandlers = {
  /** After a join, and after file:changed: list the tree again. */
  reloadFiles: () => void;
  /** `paths` changed (batched over 150 ms; "." means anything may have). */
  filesChanged: (paths: string[]) => void;
  runStatus: (event: RunStatusEvent) => void;
  sessionStatus: (event: SessionStatusEvent) => void;
};

/**
 * The session's room on the live connection: joined on every (re)connect and left on unmount, with its
 * file:changed (batched), run:status and session:status passed on. The handlers may change every render.
 */
export function useSessionLive(sessionId: string, handlers: SessionLiveHandlers) {
  const latest = useRef(handlers);
  latest.current = handlers;
  useEffect(() => {
    const socket = getSocket();
    let timer: ReturnType<typeof setTimeout> | null = null;
    const changed = new Set<string>();
    const onFile = (event: FileChangedEvent) => {
      if (event.sessionId !== sessionId) return;
      changed.add(event.path);
      if (timer) return;
      timer = setTimeout(() => {
        timer = null;
        const paths = [...changed];
        changed.clear();
        latest.current.reloadFiles();
        latest.current.filesChanged(paths);
      }, 150);
    };
    const onRunStatus = (event: RunStatusEvent) => {
      if (event.sessionId && event.sessionId !== sessionId) return;
      latest.current.runStatus(event);
    };
    const onSession = (event: SessionStatusEvent) => {
      if (event.sessionId === sessionId) latest.current.sessionStatus(event);
    };
    socket.on("file:changed", onFile);
    socket.on("run:status", onRunStatus);
    socket.on("session:status", onSession);
    // Once joined, read the tree again: a change made before the join took effect is not missed.
    const stopConnect = onEveryConnect(socket, () =>
      socket.emit("session:join", { sessionId }, (err) => {
        if (!err) latest.current.reloadFiles();
      }),
    );
    return () => {
      socket.off("file:changed", onFile);
      socket.off("run:status", onRunStatus);
      socket.off("session:status", onSession);
      stopConnect();
      if (timer) clearTimeout(timer);
      socket.emit("session:leave", { sessionId });
    };
  }, [sessionId]);
}
