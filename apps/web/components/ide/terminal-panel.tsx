"use client";
import "@xterm/xterm/css/xterm.css";
import { forwardRef, useCallback, useEffect, useImperativeHandle, useRef, useState } from "react";
import type { Terminal } from "@xterm/xterm";
import type { FitAddon } from "@xterm/addon-fit";
import { callTool, errorMessage, type Parked } from "@/lib/api";
import { byteLength, sliceNew } from "@/lib/format";
import { getSocket, onEveryConnect, type ProcessOutputEvent, type ProcessStatusEvent } from "@/lib/socket";
import { StatusBadge } from "@/components/ui/states";

type ProcessInfo = { processId: string; command: string; status: string; exitCode?: number | null; startedAt?: string };

/** What survives a reload: the terminal's text and, per process, the byte offset already shown. */
type Saved = { transcript: string; offsets: Record<string, number>; history: string[] };

const TRANSCRIPT_CAP = 256 * 1024;
const PROMPT = "\x1b[38;5;75m$\x1b[0m ";
const RED = "\x1b[31m";
const DIM = "\x1b[2m";
const RESET = "\x1b[0m";

const storageKey = (sessionId: string) => `berth:terminal:${sessionId}`;

function loadSaved(sessionId: string): Saved {
  try {
    const raw = window.sessionStorage.getItem(storageKey(sessionId));
    if (raw) {
      const saved = JSON.parse(raw) as Partial<Saved>;
      return { transcript: saved.transcript ?? "", offsets: saved.offsets ?? {}, history: saved.history ?? [] };
    }
  } catch {
    // unreadable storage: start fresh
  }
  return { transcript: "", offsets: {}, history: [] };
}

const crlf = (text: string) => text.replace(/\r?\n/g, "\r\n");

export type TerminalHandle = { focus: () => void };

type TerminalPanelProps = {
  sessionId: string;
  onParked: (parked: Parked | null) => void;
  visible: boolean;
  /** False until the page asks for the terminal (ide.tsx starts it once the editor is up). */
  start: boolean;
};

/**
 * A shell-like terminal over the bash tool: a line runs with action=exec (output when it ends); a line
 * ending in `&` starts a background process whose output streams live over `process:output` and resumes
 * from the last byte offset shown after a reload (offsets and text are saved together, so no gap and no
 * duplicate). Built-ins: `clear`, `jobs`, `kill <processId>`.
 */
export const TerminalPanel = forwardRef<TerminalHandle, TerminalPanelProps>(function TerminalPanel({ sessionId, onParked, visible, start }, ref) {
  const hostRef = useRef<HTMLDivElement>(null);
  const termRef = useRef<Terminal | null>(null);
  const fitRef = useRef<FitAddon | null>(null);
  const savedRef = useRef<Saved>({ transcript: "", offsets: {}, history: [] });
  const lineRef = useRef("");
  const busyRef = useRef(false);
  const historyIndexRef = useRef(-1);
  /** Per process: bytes received (committed + held back) and the unfinished last line held back. */
  const receivedRef = useRef<Record<string, number>>({});
  const partialRef = useRef<Record<string, string>>({});
  const flushTimersRef = useRef<Record<string, ReturnType<typeof setTimeout>>>({});
  const [processes, setProcesses] = useState<ProcessInfo[]>([]);
  const [ready, setReady] = useState(false);
  const onParkedRef = useRef(onParked);
  onParkedRef.current = onParked;

  /** A focus asked for before xterm has loaded, honoured once it has. */
  const focusWhenReadyRef = useRef(false);
  useImperativeHandle(
    ref,
    () => ({
      focus: () => {
        if (termRef.current) termRef.current.focus();
        else focusWhenReadyRef.current = true;
      },
    }),
    [],
  );

  const persist = useCallback(() => {
    try {
      window.sessionStorage.setItem(storageKey(sessionId), JSON.stringify(savedRef.current));
    } catch {
      // storage full: the transcript is capped, offsets still matter most
    }
  }, [sessionId]);

  /** Writes text that belongs to the transcript (not the prompt line being edited). */
  const commit = useCallback(
    (text: string) => {
      const term = termRef.current;
      if (!term) return;
      const saved = savedRef.current;
      saved.transcript = (saved.transcript + text).slice(-TRANSCRIPT_CAP);
      term.write(text);
    },
    [],
  );

  const drawPrompt = useCallback(() => {
    if (busyRef.current) return;
    termRef.current?.write(`\r\x1b[2K${PROMPT}${lineRef.current}`);
  }, []);

  /** Output that arrives while the user types: clear the prompt line, print, redraw it. */
  const commitAbovePrompt = useCallback(
    (text: string) => {
      if (!busyRef.current) termRef.current?.write("\r\x1b[2K");
      commit(text);
      drawPrompt();
    },
    [commit, drawPrompt],
  );

  const refreshProcesses = useCallback(async () => {
    try {
      const result = await callTool(sessionId, "bash", { action: "list" });
      const details = result.details as { processes?: ProcessInfo[] } | ProcessInfo[] | undefined;
      const list = Array.isArray(details) ? details : (details?.processes ?? []);
      setProcesses(list);
      return list;
    } catch {
      return [];
    }
  }, [sessionId]);

  const subscribe = useCallback(
    (processId: string) => {
      const committed = savedRef.current.offsets[processId] ?? 0;
      savedRef.current.offsets[processId] = committed;
      const offset = receivedRef.current[processId] ?? committed;
      receivedRef.current[processId] = offset;
      getSocket().emit("process:subscribe", { sessionId, processId, offset });
    },
    [sessionId],
  );

  // Set up xterm once per session, when started.
  useEffect(() => {
    if (!start) return;
    let disposed = false;
    let term: Terminal | null = null;
    const cleanups: (() => void)[] = [];
    void (async () => {
      const [{ Terminal }, { FitAddon }] = await Promise.all([import("@xterm/xterm"), import("@xterm/addon-fit")]);
      if (disposed || !hostRef.current) return;
      term = new Terminal({
        fontFamily: '"JetBrains Mono Variable", monospace',
        fontSize: 13,
        cursorBlink: true,
        convertEol: false,
        scrollback: 5000,
        theme: { background: "#0f1115", foreground: "#e6e9ef", cursor: "#5b9dff", selectionBackground: "#2a3b5c" },
      });
      const fit = new FitAddon();
      term.loadAddon(fit);
      term.open(hostRef.current);
      termRef.current = term;
      fitRef.current = fit;
      try {
        fit.fit();
      } catch {
        // hidden at mount: fitted when shown
      }

      savedRef.current = loadSaved(sessionId);
      if (savedRef.current.transcript) term.write(savedRef.current.transcript);
      else commit(`${DIM}Berth terminal — commands run in the session's container. End a line with & to run it in the background.${RESET}\r\n`);
      drawPrompt();

      const runLine = async (line: string) => {
        const command = line.trim();
        if (!command) return;
        const history = savedRef.current.history;
        if (history[history.length - 1] !== command) history.push(command);
        if (history.length > 200) history.shift();
        if (command === "clear") {
          term?.clear();
          savedRef.current.transcript = "";
          return;
        }
        if (command === "jobs") {
          const list = await refreshProcesses();
          commit(list.length ? list.map((p) => `${p.processId}  ${p.status.padEnd(8)} ${p.command}\r\n`).join("") : `${DIM}no background processes${RESET}\r\n`);
          return;
        }
        const kill = /^kill\s+(proc_[0-9a-f]+)$/.exec(command);
        if (kill?.[1]) {
          const result = await callTool(sessionId, "bash", { action: "stop", processId: kill[1] });
          commit(result.ok ? `${DIM}stopped ${kill[1]}${RESET}\r\n` : `${RED}${crlf(result.output)}${RESET}\r\n`);
          void refreshProcesses();
          return;
        }
        const background = /&\s*$/.test(command) && !/&&\s*$/.test(command);
        const onParked = (parked: Parked) => {
          onParkedRef.current(parked);
          commit(`${DIM}⏸ waiting for operator approval (${parked.approvalId}, sha256 ${parked.sha256.slice(0, 12)}…)${RESET}\r\n`);
        };
        if (background) {
          const result = await callTool(sessionId, "bash", { action: "start", command: command.replace(/&\s*$/, "").trim() }, { onParked });
          onParkedRef.current(null);
          const processId = (result.details as { processId?: string } | undefined)?.processId;
          if (!result.ok || !processId) {
            commit(`${RED}${crlf(result.error?.message ?? result.output)}${RESET}\r\n`);
            return;
          }
          commit(`${DIM}[started ${processId}]${RESET}\r\n`);
          subscribe(processId);
          persist();
          void refreshProcesses();
          return;
        }
        const result = await callTool(sessionId, "bash", { action: "exec", command, timeoutMs: 120_000 }, { onParked });
        onParkedRef.current(null);
        const details = result.details as { stdout?: string; stderr?: string; exitCode?: number; timedOut?: boolean } | undefined;
        if (details && (details.stdout !== undefined || details.stderr !== undefined)) {
          let text = "";
          if (details.stdout) text += crlf(details.stdout) + (details.stdout.endsWith("\n") ? "" : "\r\n");
          if (details.stderr) text += RED + crlf(details.stderr) + (details.stderr.endsWith("\n") ? "" : "\r\n") + RESET;
          if (details.exitCode !== undefined && details.exitCode !== 0) text += `${DIM}[exit ${details.exitCode}${details.timedOut ? ", timed out" : ""}]${RESET}\r\n`;
          commit(text);
        } else {
          commit(`${result.ok ? "" : RED}${crlf(result.error?.message ?? result.output)}${RESET}\r\n`);
        }
      };

      const disposable = term.onData((data) => {
        if (busyRef.current) return;
        const t = termRef.current;
        if (!t) return;
        for (let i = 0; i < data.length; i++) {
          const ch = data[i] ?? "";
          if (ch === "\r") {
            const line = lineRef.current;
            lineRef.current = "";
            historyIndexRef.current = -1;
            commit(`\r\x1b[2K${PROMPT}${line}\r\n`);
            busyRef.current = true;
            void runLine(line)
              .catch((error: unknown) => commit(`${RED}${errorMessage(error)}${RESET}\r\n`))
              .finally(() => {
                busyRef.current = false;
                persist();
                drawPrompt();
              });
            return;
          }
          if (ch === "\x7f" || ch === "\b") {
            if (lineRef.current.length > 0) {
              lineRef.current = lineRef.current.slice(0, -1);
              t.write("\b \b");
            }
          } else if (ch === "\x03") {
            lineRef.current = "";
            t.write("^C\r\n");
            drawPrompt();
          } else if (ch === "\x0c") {
            t.clear();
          } else if (ch === "\x1b") {
            const seq = data.slice(i, i + 3);
            const history = savedRef.current.history;
            if (seq === "\x1b[A" || seq === "\x1b[B") {
              if (history.length) {
                let index = historyIndexRef.current;
                index = seq === "\x1b[A" ? (index < 0 ? history.length - 1 : Math.max(0, index - 1)) : index < 0 ? -1 : index + 1;
                if (index >= history.length) index = -1;
                historyIndexRef.current = index;
                lineRef.current = index < 0 ? "" : (history[index] ?? "");
                drawPrompt();
              }
            }
            i += 2;
          } else if (ch >= " " || ch === "\t") {
            lineRef.current += ch;
            t.write(ch);
          }
        }
      });
      cleanups.push(() => disposable.dispose());

      const onResize = () => {
        try {
          fitRef.current?.fit();
        } catch {
          // not visible
        }
      };
      const observer = new ResizeObserver(onResize);
      observer.observe(hostRef.current);
      cleanups.push(() => observer.disconnect());
      if (focusWhenReadyRef.current) term.focus();
      setReady(true);
    })();

    const onPageHide = () => persist();
    window.addEventListener("pagehide", onPageHide);
    return () => {
      disposed = true;
      window.removeEventListener("pagehide", onPageHide);
      persist();
      for (const cleanup of cleanups) cleanup();
      term?.dispose();
      termRef.current = null;
    };
  }, [start, sessionId, commit, drawPrompt, persist, refreshProcesses, subscribe]);

  // Live output of background processes, resumed from saved offsets on every (re)connect.
  useEffect(() => {
    if (!ready) return;
    const socket = getSocket();
    /** Whole lines only reach the terminal (a prompt redraw would erase half a line); a line still
     *  unfinished after 300 ms is shown with a line break. The saved offset counts shown bytes only, so a
     *  reload asks again for what was held back. */
    const show = (processId: string, text: string, stream: string | undefined) => {
      let out = "";
      for (const line of text.split(/(?<=\n)/)) {
        let body = line;
        let stderr = stream === "stderr";
        if (body.startsWith("[stdout] ")) body = body.slice(9);
        else if (body.startsWith("[stderr] ")) {
          body = body.slice(9);
          stderr = true;
        }
        out += stderr ? `${RED}${crlf(body)}${RESET}` : crlf(body);
      }
      savedRef.current.offsets[processId] = (savedRef.current.offsets[processId] ?? 0) + byteLength(text);
      return out;
    };
    const onOutput = (event: ProcessOutputEvent) => {
      if (event.sessionId !== sessionId) return;
      const id = event.processId;
      const have = receivedRef.current[id] ?? savedRef.current.offsets[id] ?? 0;
      const piece = sliceNew(have, event.offset, event.data);
      if (!piece) return;
      receivedRef.current[id] = piece.end;
      const full = (partialRef.current[id] ?? "") + piece.text;
      const cut = full.lastIndexOf("\n") + 1;
      partialRef.current[id] = full.slice(cut);
      clearTimeout(flushTimersRef.current[id]);
      if (cut > 0) commitAbovePrompt(show(id, full.slice(0, cut), event.stream));
      if (partialRef.current[id]) {
        flushTimersRef.current[id] = setTimeout(() => {
          const rest = partialRef.current[id];
          if (!rest) return;
          partialRef.current[id] = "";
          commitAbovePrompt(`${show(id, rest, event.stream)}\r\n`);
          schedulePersist();
        }, 300);
      }
      schedulePersist();
    };
    let persistTimer: ReturnType<typeof setTimeout> | null = null;
    const schedulePersist = () => {
      if (persistTimer) return;
      persistTimer = setTimeout(() => {
        persistTimer = null;
        persist();
      }, 200);
    };
    const onStatus = (event: ProcessStatusEvent) => {
      if (event.sessionId !== sessionId) return;
      setProcesses((old) => {
        const found = old.some((p) => p.processId === event.processId);
        return found ? old.map((p) => (p.processId === event.processId ? { ...p, status: event.status, exitCode: event.exitCode ?? p.exitCode } : p)) : old;
      });
      if (event.status !== "RUNNING" && savedRef.current.offsets[event.processId] !== undefined) {
        commitAbovePrompt(`${DIM}[${event.processId} ${event.status.toLowerCase()}${event.exitCode !== undefined && event.exitCode !== null ? `, exit ${event.exitCode}` : ""}]${RESET}\r\n`);
        persist();
      }
    };
    socket.on("process:output", onOutput);
    socket.on("process:status", onStatus);
    const stopConnect = onEveryConnect(socket, () => {
      socket.emit("session:join", { sessionId });
      for (const processId of Object.keys(savedRef.current.offsets)) subscribe(processId);
    });
    void refreshProcesses();
    return () => {
      socket.off("process:output", onOutput);
      socket.off("process:status", onStatus);
      stopConnect();
      if (persistTimer) clearTimeout(persistTimer);
      for (const timer of Object.values(flushTimersRef.current)) clearTimeout(timer);
      persist();
    };
  }, [ready, sessionId, commitAbovePrompt, persist, refreshProcesses, subscribe]);

  useEffect(() => {
    if (!visible) return;
    const id = requestAnimationFrame(() => {
      try {
        fitRef.current?.fit();
      } catch {
        // not laid out yet
      }
    });
    return () => cancelAnimationFrame(id);
  }, [visible]);

  const attach = (processId: string) => {
    if (savedRef.current.offsets[processId] === undefined) {
      commitAbovePrompt(`${DIM}[attached to ${processId}]${RESET}\r\n`);
      subscribe(processId);
      persist();
    }
    termRef.current?.focus();
  };

  const stop = async (processId: string) => {
    await callTool(sessionId, "bash", { action: "stop", processId }).catch(() => undefined);
    void refreshProcesses();
  };

  return (
    <div className="terminal-panel">
      <div className="terminal-host" ref={hostRef} data-testid="terminal" onClick={() => termRef.current?.focus()}>
        {ready ? null : <div className="terminal-starting muted tiny">Starting terminal…</div>}
      </div>
      <aside className="process-list" data-testid="process-list">
        <div className="panel-title">
          Processes
          <button className="btn ghost tiny-btn" onClick={() => void refreshProcesses()} title="Refresh">
            ↻
          </button>
        </div>
        {processes.length === 0 ? (
          <div className="muted tiny pad">
            None. End a command with <code>&amp;</code> to run it in the background.
          </div>
        ) : (
          processes
            .slice()
            .reverse()
            .map((p) => (
              <div key={p.processId} className="process-row" data-testid="process-row" data-process-id={p.processId}>
                <div className="row">
                  <StatusBadge value={p.status} />
                  <span className="mono tiny ellipsis" title={p.command}>
                    {p.command}
                  </span>
                </div>
                <div className="row tiny">
                  <button className="link-btn" onClick={() => attach(p.processId)}>
                    attach
                  </button>
                  {p.status === "RUNNING" ? (
                    <button className="link-btn danger" onClick={() => void stop(p.processId)}>
                      stop
                    </button>
                  ) : null}
                </div>
              </div>
            ))
        )}
      </aside>
    </div>
  );
});
