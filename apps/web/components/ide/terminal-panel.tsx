"use client";
import "@xterm/xterm/css/xterm.css";
import { forwardRef, useCallback, useEffect, useImperativeHandle, useRef, useState } from "react";
import type { TerminalInfo } from "@berth/protocol";
import { errorMessage, type Parked } from "@/lib/api";
import { getSocket, onEveryConnect, request, type TerminalExitEvent, type TerminalOutputEvent } from "@/lib/socket";
import { decodeReplays, encodeReplays, type ReplayState } from "@/lib/ide/terminal-replay";
import { TerminalView, type XtermModules } from "./terminal-view";

export type TerminalHandle = { focus: () => void };

type TerminalPanelProps = {
  sessionId: string;
  /** Unused: a terminal is the person acting as themselves and never waits for an approval. */
  onParked?: (parked: Parked | null) => void;
  visible: boolean;
  /** False until the page asks for the terminal (ide.tsx starts it once the editor is up). */
  start: boolean;
};

type Tab = { terminalId: string; name: string; status: TerminalInfo["status"]; exitCode: number | null };

const storageKey = (sessionId: string) => `berth:terminals:${sessionId}`;

/**
 * The IDE's terminals: tabs of real shells, each xterm.js on a PTY inside the session's container
 * (docs/api.md "Terminals"). A tab survives a reload or a network drop: on every (re)connect the panel
 * lists the session's terminals and reattaches each from the byte offset it has shown (kept in
 * sessionStorage with the last screenful of bytes), so nothing is missed or shown twice.
 */
export const TerminalPanel = forwardRef<TerminalHandle, TerminalPanelProps>(function TerminalPanel(
  { sessionId, visible, start },
  ref,
) {
  const hostRef = useRef<HTMLDivElement>(null);
  const [modules, setModules] = useState<XtermModules | null>(null);
  const [tabs, setTabs] = useState<Tab[]>([]);
  const [active, setActive] = useState<string | null>(null);
  const [renaming, setRenaming] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [opening, setOpening] = useState(false);
  const views = useRef(new Map<string, TerminalView>());
  const saved = useRef<Map<string, ReplayState>>(new Map());
  const activeRef = useRef<string | null>(null);
  activeRef.current = active;
  const focusWhenReady = useRef(false);

  useImperativeHandle(
    ref,
    () => ({
      focus: () => {
        const view = activeRef.current ? views.current.get(activeRef.current) : undefined;
        if (view) view.focus();
        else focusWhenReady.current = true;
      },
    }),
    [],
  );

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

  // xterm loads after the editor (ide.tsx says when).
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
    const socket = getSocket();
    socket.emit("terminal:attach", { terminalId, offset: view.state.offset }, (err) => {
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
      view.host.hidden = activeRef.current !== terminalId;
      view.open();
      return view;
    },
    [attach, persistSoon],
  );

  const open = useCallback(
    async (mods: XtermModules) => {
      setOpening(true);
      setError(null);
      try {
        const size = (activeRef.current && views.current.get(activeRef.current)?.size) || { cols: 100, rows: 24 };
        const info = await request<TerminalInfo>((ack) =>
          getSocket().emit("terminal:open", { sessionId, ...size }, ack),
        );
        setTabs((old) => [
          ...old,
          { terminalId: info.terminalId, name: info.name, status: info.status, exitCode: info.exitCode },
        ]);
        setActive(info.terminalId);
        activeRef.current = info.terminalId;
        viewFor(info.terminalId, mods);
        attach(info.terminalId);
      } catch (e) {
        setError(errorMessage(e));
      } finally {
        setOpening(false);
      }
    },
    [sessionId, viewFor, attach],
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
      setTabs((old) =>
        old.map((t) => (t.terminalId === event.terminalId ? { ...t, status: "exited", exitCode: event.exitCode } : t)),
      );
      views.current
        .get(event.terminalId)
        ?.note(
          `[shell exited${event.exitCode === null ? "" : ` with code ${event.exitCode}`}; close the tab or open a new one]`,
        );
    };
    socket.on("terminal:output", onOutput);
    socket.on("terminal:exit", onExit);
    const stopConnect = onEveryConnect(socket, () => {
      void request<{ terminals: TerminalInfo[] }>((ack) => socket.emit("terminal:list", { sessionId }, ack)).then(
        ({ terminals }) => {
          setError(null);
          setTabs(
            terminals.map((t) => ({ terminalId: t.terminalId, name: t.name, status: t.status, exitCode: t.exitCode })),
          );
          const ids = new Set(terminals.map((t) => t.terminalId));
          for (const [terminalId, view] of views.current) {
            if (ids.has(terminalId)) continue;
            view.dispose();
            views.current.delete(terminalId);
          }
          const current =
            activeRef.current && ids.has(activeRef.current) ? activeRef.current : (terminals[0]?.terminalId ?? null);
          activeRef.current = current;
          setActive(current);
          for (const t of terminals) {
            viewFor(t.terminalId, modules);
            attach(t.terminalId);
          }
          // A session's first visit gets a shell at once.
          if (terminals.length === 0 && !openedOne) {
            openedOne = true;
            void open(modules);
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
  }, [modules, sessionId, attach, viewFor, open, persist]);

  // Show the active tab, fitted to the panel; refit whenever the panel changes size.
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
    const observer = new ResizeObserver(() => {
      const view = activeRef.current ? views.current.get(activeRef.current) : undefined;
      view?.fit();
    });
    observer.observe(host);
    return () => observer.disconnect();
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
    setTabs((old) => {
      const rest = old.filter((t) => t.terminalId !== terminalId);
      if (activeRef.current === terminalId) setActive(rest[rest.length - 1]?.terminalId ?? null);
      return rest;
    });
  };

  const rename = async (terminalId: string, name: string) => {
    setRenaming(null);
    const trimmed = name.trim();
    if (!trimmed || tabs.find((t) => t.terminalId === terminalId)?.name === trimmed) return;
    try {
      const info = await request<TerminalInfo>((ack) =>
        getSocket().emit("terminal:rename", { terminalId, name: trimmed }, ack),
      );
      setTabs((old) => old.map((t) => (t.terminalId === terminalId ? { ...t, name: info.name } : t)));
    } catch (e) {
      setError(errorMessage(e));
    }
  };

  return (
    <div className="terminal-panel">
      <div className="terminal-tabs" role="tablist" data-testid="terminal-tabs">
        {tabs.map((tab) => (
          <div
            key={tab.terminalId}
            role="tab"
            aria-selected={tab.terminalId === active}
            className={`terminal-tab${tab.terminalId === active ? " active" : ""}${tab.status === "exited" ? " exited" : ""}`}
            data-testid="terminal-tab"
            data-terminal-id={tab.terminalId}
            onClick={() => {
              setActive(tab.terminalId);
              focusWhenReady.current = true;
            }}
          >
            {renaming === tab.terminalId ? (
              <input
                className="terminal-tab-name"
                data-testid="terminal-tab-rename"
                defaultValue={tab.name}
                autoFocus
                maxLength={60}
                onBlur={(e) => void rename(tab.terminalId, e.currentTarget.value)}
                onKeyDown={(e) => {
                  if (e.key === "Enter") void rename(tab.terminalId, e.currentTarget.value);
                  if (e.key === "Escape") setRenaming(null);
                }}
              />
            ) : (
              <span
                className="terminal-tab-label"
                title="Double-click to rename"
                onDoubleClick={() => setRenaming(tab.terminalId)}
              >
                {tab.name}
                {tab.status === "exited" ? <span className="muted"> (exited)</span> : null}
              </span>
            )}
            <button
              className="terminal-tab-close"
              title="Close (ends the shell)"
              aria-label={`Close ${tab.name}`}
              data-testid="terminal-tab-close"
              onClick={(e) => {
                e.stopPropagation();
                void close(tab.terminalId);
              }}
            >
              ×
            </button>
          </div>
        ))}
        <button
          className="terminal-new"
          title="New terminal"
          data-testid="terminal-new"
          disabled={!modules || opening}
          onClick={() => modules && void open(modules)}
        >
          +
        </button>
        {error ? (
          <span className="terminal-error danger tiny" role="alert" data-testid="terminal-error">
            {error}
          </span>
        ) : null}
      </div>
      <div
        className="terminal-host"
        data-testid="terminal"
        onClick={() => (active ? views.current.get(active)?.focus() : undefined)}
      >
        {modules ? null : <div className="terminal-starting muted tiny">Starting terminal…</div>}
        {/* xterm's views live here, outside React's children (TerminalView owns them). */}
        <div className="terminal-views" ref={hostRef} />
      </div>
    </div>
  );
});
