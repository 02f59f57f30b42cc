"use client";
import { useCallback, useEffect, useRef, useState } from "react";
import type { TerminalInfo } from "@berth/protocol";
import { errorMessage } from "@/lib/api";
import { getSocket, onEveryConnect, request, type TerminalExitEvent, type TerminalOutputEvent } from "@/lib/socket";
import { decodeReplays, encodeReplays, type ReplayState } from "@/lib/ide/terminal-replay";
import { NO_TERMINALS, exitNote, reduceTerminalTabs, renameTarget, unlistedTerminals } from "@/lib/ide/terminal-tabs";
import { TerminalView, type XtermModules } from "./terminal-view";
import { useSyncedReducer } from "./use-synced-reducer";

const storageKey = (sessionId: string) => `berth:terminals:${sessionId}`;

/**
 * The session's terminals on the live connection: on every (re)connect the runner's list is taken
 * (lib/ide/terminal-tabs.ts) and each terminal reattached from the byte offset its view has shown, kept in
 * sessionStorage with the last screenful (lib/ide/terminal-replay.ts), so a reload or a network drop
 * neither misses nor repeats a byte. The views (terminal-view.ts) live in `hostRef`, outside React.
 * xterm loads only once `start` is true.
 */
export function useTerminals({ sessionId, visible, start }: { sessionId: string; visible: boolean; start: boolean }) {
  const hostRef = useRef<HTMLDivElement>(null);
  const [modules, setModules] = useState<XtermModules | null>(null);
  const [state, dispatch, latest] = useSyncedReducer(reduceTerminalTabs, NO_TERMINALS);
  const [error, setError] = useState<string | null>(null);
  const [opening, setOpening] = useState(false);
  const views = useRef(new Map<string, TerminalView>());
  const saved = useRef<Map<string, ReplayState>>(new Map());
  const focusWhenReady = useRef(false);
  const activeView = () => (latest.current.active ? views.current.get(latest.current.active) : undefined);

  const persist = useCallback(() => {
    const states = new Map<string, ReplayState>();
    for (const [terminalId, view] of views.current) states.set(terminalId, view.state);
    try {
      window.sessionStorage.setItem(storageKey(sessionId), JSON.stringify(encodeReplays(states)));
    } catch {
      // storage full: a reload then replays from the start instead
    }
  }, [sessionId]);
  const persistTimer = useRef<ReturnType<typeof setTimeout> | null>(null);
  const persistSoon = useCallback(() => {
    if (persistTimer.current) return;
    persistTimer.current = setTimeout(() => {
      persistTimer.current = null;
      persist();
    }, 250);
  }, [persist]);

  // xterm loads after the editor (use-load-schedule.ts says when).
  useEffect(() => {
    if (!start || modules) return;
    let cancelled = false;
    void Promise.all([import("@xterm/xterm"), import("@xterm/addon-fit")]).then(([xterm, fit]) => {
      if (!cancelled) setModules({ Terminal: xterm.Terminal, FitAddon: fit.FitAddon });
    });
    return () => {
      cancelled = true;
    };
  }, [start, modules]);

  const attach = useCallback((terminalId: string) => {
    const view = views.current.get(terminalId);
    if (!view) return;
    getSocket().emit("terminal:attach", { terminalId, offset: view.state.offset }, (err) => {
      if (err) setError(err.message);
    });
  }, []);

  /** The view of a terminal, made (and put in the page) on first sight. */
  const viewFor = useCallback(
    (terminalId: string, mods: XtermModules): TerminalView => {
      let view = views.current.get(terminalId);
      if (view) return view;
      const socket = getSocket();
      view = new TerminalView(mods, saved.current.get(terminalId), {
        input: (data) => socket.emit("terminal:input", { terminalId, data }),
        resize: (cols, rows) => socket.emit("terminal:resize", { terminalId, cols, rows }),
        gap: () => attach(terminalId),
        changed: persistSoon,
      });
      views.current.set(terminalId, view);
      hostRef.current?.appendChild(view.host);
      view.host.dataset.terminalId = terminalId;
      view.host.hidden = latest.current.active !== terminalId;
      view.open();
      return view;
    },
    [attach, persistSoon, latest],
  );

  const openWith = useCallback(
    async (mods: XtermModules) => {
      setOpening(true);
      setError(null);
      try {
        const size = activeView()?.size || { cols: 100, rows: 24 };
        const info = await request<TerminalInfo>((ack) => getSocket().emit("terminal:open", { sessionId, ...size }, ack));
        dispatch({ type: "opened", terminal: info });
        viewFor(info.terminalId, mods);
        attach(info.terminalId);
      } catch (e) {
        setError(errorMessage(e));
      } finally {
        setOpening(false);
      }
    },
    // activeView reads refs only.
    [sessionId, dispatch, viewFor, attach],
  );

  // Live: on every (re)connect, list the session's terminals and reattach each from its offset.
  useEffect(() => {
    if (!modules) return;
    saved.current = decodeReplays(window.sessionStorage.getItem(storageKey(sessionId)));
    const socket = getSocket();
    let openedOne = false;
    const onOutput = (event: TerminalOutputEvent, ack: () => void) => {
      const view = views.current.get(event.terminalId);
      if (!view) return ack();
      view.output(event.offset, event.data instanceof Uint8Array ? event.data : new Uint8Array(event.data), ack);
    };
    const onExit = (event: TerminalExitEvent) => {
      dispatch({ type: "exited", terminalId: event.terminalId, exitCode: event.exitCode });
      views.current.get(event.terminalId)?.note(exitNote(event.exitCode));
    };
    socket.on("terminal:output", onOutput);
    socket.on("terminal:exit", onExit);
    const stopConnect = onEveryConnect(socket, () => {
      void request<{ terminals: TerminalInfo[] }>((ack) => socket.emit("terminal:list", { sessionId }, ack)).then(
        ({ terminals }) => {
          setError(null);
          dispatch({ type: "listed", terminals });
          for (const terminalId of unlistedTerminals(views.current.keys(), terminals)) {
            views.current.get(terminalId)?.dispose();
            views.current.delete(terminalId);
          }
          for (const t of terminals) {
            viewFor(t.terminalId, modules);
            attach(t.terminalId);
          }
          // A session's first visit gets a shell at once.
          if (terminals.length === 0 && !openedOne) {
            openedOne = true;
            void openWith(modules);
          }
        },
        (e: unknown) => setError(errorMessage(e)),
      );
    });
    const onPageHide = () => persist();
    window.addEventListener("pagehide", onPageHide);
    return () => {
      socket.off("terminal:output", onOutput);
      socket.off("terminal:exit", onExit);
      stopConnect();
      window.removeEventListener("pagehide", onPageHide);
      persist();
      for (const view of views.current.values()) view.dispose();
      views.current.clear();
    };
  }, [modules, sessionId, dispatch, attach, viewFor, openWith, persist]);

  // Show the active tab, fitted to the panel; refit whenever the panel changes size.
  const { active, tabs } = state;
  useEffect(() => {
    for (const [terminalId, view] of views.current) view.host.hidden = terminalId !== active;
    const view = active ? views.current.get(active) : undefined;
    if (!view || !visible) return;
    const frame = requestAnimationFrame(() => {
      view.fit();
      if (focusWhenReady.current) {
        focusWhenReady.current = false;
        view.focus();
      }
    });
    return () => cancelAnimationFrame(frame);
  }, [active, visible, tabs]);
  useEffect(() => {
    const host = hostRef.current;
    if (!host) return;
    const observer = new ResizeObserver(() => activeView()?.fit());
    observer.observe(host);
    return () => observer.disconnect();
    // activeView reads refs only.
  }, []);

  const close = async (terminalId: string) => {
    try {
      await request((ack) => getSocket().emit("terminal:close", { terminalId }, ack));
    } catch (e) {
      setError(errorMessage(e));
      return;
    }
    views.current.get(terminalId)?.dispose();
    views.current.delete(terminalId);
    persist();
    dispatch({ type: "closed", terminalId });
  };

  const rename = async (terminalId: string, name: string) => {
    const target = renameTarget(latest.current, terminalId, name);
    if (!target) return;
    try {
      const info = await request<TerminalInfo>((ack) => getSocket().emit("terminal:rename", { terminalId, name: target }, ack));
      dispatch({ type: "renamed", terminalId, name: info.name });
    } catch (e) {
      setError(errorMessage(e));
    }
  };

  return {
    hostRef,
    ready: !!modules,
    tabs,
    active,
    error,
    opening,
    open: () => modules && void openWith(modules),
    close,
    rename,
    /** Shows a tab and focuses it once it is laid out. */
    select: (terminalId: string) => {
      dispatch({ type: "activate", terminalId });
      focusWhenReady.current = true;
    },
    /** Focuses the active terminal now, or as soon as one shows. */
    focus: () => {
      const view = activeView();
      if (view) view.focus();
      else focusWhenReady.current = true;
    },
    focusActive: () => activeView()?.focus(),
  };
}
