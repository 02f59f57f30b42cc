"use client";
import { Link } from "@/components/ui/link";
import { useCallback, useEffect, useMemo, useRef, useState, type CSSProperties } from "react";
import type { OnMount } from "@monaco-editor/react";
import {
  AUTONOMY_HELP,
  AUTONOMY_OPTIONS,
  DEVELOPER_MAX_AUTONOMY,
  FILE_TREE_GLOB,
  callTool,
  cancelApproval,
  cancelRun,
  decideApproval,
  errorMessage,
  getSession,
  listRuns,
  setSessionAutonomy,
  type Autonomy,
  type Parked,
  type Run,
} from "@/lib/api";
import { formatDuration, formatRelative, shortId } from "@/lib/format";
import { interpreterFor, languageFor } from "@/lib/languages";
import { callToolLive, getSocket, onEveryConnect, useSocketState, type FileChangedEvent, type RunStatusEvent, type SessionStatusEvent } from "@/lib/socket";
import { ParkedCalls, usePendingApprovals } from "./parked-calls";
import { CodeEditor } from "@/components/editor/code-editor";
import { OutputView } from "@/components/runs/run-output";
import { useRunStream } from "@/components/runs/use-run-stream";
import { ResultImages } from "@/components/runs/result-images";
import { useAsync } from "@/components/ui/use-async";
import type { IdeFirstView } from "@/lib/runner";
import { EmptyState, ErrorState, SocketStatus, Spinner, StatusBadge } from "@/components/ui/states";
import { Splitter } from "@/components/ui/splitter";
import { DEFAULT_IDE_LAYOUT, SIDEBAR_RANGE, BOTTOM_RANGE, defaultBottomHeight, ideLayoutLimits, saveIdeLayout, type IdeLayout } from "@/lib/ide/ide-layout";
import { FilesSidebar } from "./files-sidebar";
import { TerminalPanel, type TerminalHandle } from "./terminal-panel";
import { PortsPanel } from "./ports-panel";
import { SaveConflictBar, type SaveConflict } from "./save-conflict";
import { useEditorState } from "./use-editor-state";

// Open the live connection as soon as this module runs, before React hydrates the page: the handshake
// then overlaps hydration instead of following it.
if (typeof window !== "undefined") getSocket();

type TabKind = "loading" | "text" | "binary" | "too_large" | "error";
/** sha256: of the version loaded or last saved, sent with the next save so a change on disk since is a conflict. */
type Tab = { path: string; kind: TabKind; saved: string; draft: string; truncated?: boolean; message?: string; sha256?: string | null };
type BottomTab = "terminal" | "output" | "runs" | "ports";

/** Files bigger than this open read-only (the editor would be slow and write_file refuses over 8 MiB). */
const EDITABLE_MAX_CHARS = 2_000_000;
const runKey = (sessionId: string) => `berth:run:${sessionId}`;
/** What the editor holds while no text file is active (it stays hidden then). */
const NO_FILE_MODEL = "inmemory://berth/no-file";

type MonacoApi = Parameters<OnMount>[1];

/** The signed-in person (the page knows them from the browser session). */
export type IdeUser = { userId: string; name: string; role: string };

export function Ide({ sessionId, me, firstView, layout }: { sessionId: string; me?: IdeUser; firstView?: IdeFirstView; layout?: IdeLayout }) {
  const panes = usePaneSizes(layout ?? DEFAULT_IDE_LAYOUT);
  const session = useAsync(() => getSession(sessionId), [sessionId], firstView?.session ?? undefined);
  const socketState = useSocketState();
  const connected = socketState === "live";
  const [files, setFiles] = useState<string[]>(firstView?.files ?? []);
  const [filesLoading, setFilesLoading] = useState(!firstView?.files);
  const [filesError, setFilesError] = useState<string | null>(null);
  const [tabs, setTabs] = useState<Tab[]>([]);
  const [activePath, setActivePath] = useState<string | null>(null);
  const [saving, setSaving] = useState(false);
  const [notice, setNotice] = useState<{ tone: "ok" | "bad"; text: string } | null>(null);
  const [parked, setParked] = useState<Parked | null>(null);
  const [bottom, setBottom] = useState<BottomTab>("terminal");
  const [runId, setRunId] = useState<string | null>(null);
  const [runPending, setRunPending] = useState(false);
  const [stopping, setStopping] = useState(false);
  const [runs, setRuns] = useState<Run[] | null>(null);
  const tabsRef = useRef<Tab[]>([]);
  tabsRef.current = tabs;
  const activeRef = useRef<string | null>(null);
  activeRef.current = activePath;
  const monacoRef = useRef<MonacoApi | null>(null);
  const [codeEditor, setCodeEditor] = useState<Parameters<OnMount>[0] | null>(null);
  const [conflict, setConflict] = useState<SaveConflict | null>(null);
  const conflictRef = useRef<SaveConflict | null>(null);
  conflictRef.current = conflict;
  const terminalRef = useRef<TerminalHandle>(null);
  const stream = useRunStream(runId);
  const approvals = usePendingApprovals(sessionId);
  // The banner goes as soon as the call is decided (approval:decided), not when the call answers.
  useEffect(() => {
    if (parked && approvals.decided.has(parked.approvalId)) setParked(null);
  }, [parked, approvals.decided]);

  const modelPath = useCallback((path: string) => `file:///${sessionId}/${path}`, [sessionId]);
  const activeTab = tabs.find((t) => t.path === activePath) ?? null;
  const textTab = activeTab?.kind === "text" ? activeTab : null;
  const dirty = useMemo(() => new Set(tabs.filter((t) => t.kind === "text" && t.draft !== t.saved).map((t) => t.path)), [tabs]);

  // ---- files ----
  const reloadFiles = useCallback(async () => {
    try {
      const result = await callTool(sessionId, "glob", FILE_TREE_GLOB);
      if (!result.ok) throw new Error(result.error?.message ?? result.output);
      const list = (result.details as { files?: string[] } | undefined)?.files ?? [];
      setFiles(list);
      setFilesError(null);
    } catch (error) {
      setFilesError(errorMessage(error));
    } finally {
      setFilesLoading(false);
    }
  }, [sessionId]);

  const readInto = useCallback(
    async (path: string, opts: { onlyIfClean?: boolean } = {}) => {
      const result = await callTool(sessionId, "read_file", { path, maxChars: EDITABLE_MAX_CHARS });
      setTabs((old) =>
        old.map((tab) => {
          if (tab.path !== path) return tab;
          if (opts.onlyIfClean && tab.kind === "text" && tab.draft !== tab.saved) return tab;
          if (!result.ok) {
            const code = result.error?.code ?? "";
            const kind: TabKind = code === "binary_file" || code === "invalid_utf8" ? "binary" : code === "too_large" ? "too_large" : "error";
            return { ...tab, kind, message: result.error?.message ?? result.output };
          }
          const details = result.details as { content?: string; truncated?: boolean; sha256?: string } | undefined;
          const content = details?.content ?? "";
          const model = monacoRef.current?.editor.getModel(monacoRef.current.Uri.parse(modelPath(path)));
          if (model && model.getValue() !== content) model.setValue(content);
          return { ...tab, kind: "text", saved: content, draft: content, truncated: !!details?.truncated, message: undefined, sha256: details?.sha256 ?? null };
        }),
      );
    },
    [sessionId, modelPath],
  );

  const openFile = useCallback(
    (path: string) => {
      setActivePath(path);
      if (tabsRef.current.some((t) => t.path === path)) return;
      setTabs((old) => [...old, { path, kind: "loading", saved: "", draft: "" }]);
      void readInto(path).catch((error: unknown) =>
        setTabs((old) => old.map((t) => (t.path === path ? { ...t, kind: "error", message: errorMessage(error) } : t))),
      );
    },
    [readInto],
  );

  const closeTab = (path: string) => {
    const tab = tabsRef.current.find((t) => t.path === path);
    if (tab && tab.kind === "text" && tab.draft !== tab.saved && !window.confirm(`${path} has unsaved changes. Close it anyway?`)) return;
    const remaining = tabsRef.current.filter((t) => t.path !== path);
    setTabs(remaining);
    monacoRef.current?.editor.getModel(monacoRef.current.Uri.parse(modelPath(path)))?.dispose();
    if (activeRef.current === path) setActivePath(remaining[remaining.length - 1]?.path ?? null);
  };

  const createFile = async (path: string) => {
    const result = await callTool(sessionId, "write_file", { path, content: "", mode: "create" }, { onParked: setParked });
    setParked(null);
    if (!result.ok) throw new Error(result.error?.message ?? result.output);
    setFiles((old) => (old.includes(path) ? old : [...old, path].sort()));
    openFile(path);
  };

  /** Writes the tab's draft if the file still is the version it loaded (or `expected`); a conflict opens the bar. */
  const writeTab = useCallback(async (path: string, expected?: string | null): Promise<boolean> => {
    const tab = tabsRef.current.find((t) => t.path === path);
    if (!tab || tab.kind !== "text" || tab.truncated) return false;
    const content = tab.draft;
    const expectedSha256 = expected !== undefined ? expected : (tab.sha256 ?? null);
    setSaving(true);
    try {
      const result = await callTool(sessionId, "write_file", { path, content, expectedSha256 }, { onParked: setParked });
      setParked(null);
      if (!result.ok && result.error?.code === "conflict") {
        const disk = await callTool(sessionId, "read_file", { path, maxChars: EDITABLE_MAX_CHARS });
        const details = disk.details as { content?: string; sha256?: string } | undefined;
        // Gone from disk: an Overwrite then writes without a check (null), bringing the user's version back.
        setConflict({ path, disk: disk.ok ? (details?.content ?? "") : "", diskSha256: disk.ok ? (details?.sha256 ?? null) : null, mine: content, reloaded: false });
        setNotice({ tone: "bad", text: `Not saved: ${path} changed on disk` });
        return false;
      }
      if (!result.ok) throw new Error(result.error?.message ?? result.output);
      const sha256 = (result.details as { sha256?: string } | undefined)?.sha256 ?? null;
      setTabs((old) => old.map((t) => (t.path === path ? { ...t, saved: content, sha256 } : t)));
      setConflict((c) => (c?.path === path ? null : c));
      setNotice({ tone: "ok", text: `Saved ${path}` });
      return true;
    } catch (error) {
      setNotice({ tone: "bad", text: `Save failed: ${errorMessage(error)}` });
      return false;
    } finally {
      setSaving(false);
    }
  }, [sessionId]);

  const save = useCallback(async (): Promise<boolean> => {
    const path = activeRef.current;
    const tab = tabsRef.current.find((t) => t.path === path);
    if (!path || !tab || tab.kind !== "text" || tab.truncated) return false;
    if (tab.draft === tab.saved) return true;
    return writeTab(path);
  }, [writeTab]);

  /** Puts text into a tab's editor model (its onChange then sets the draft) and the tab. */
  const setTabText = (path: string, text: string, asSaved?: { sha256: string | null }) => {
    const model = monacoRef.current?.editor.getModel(monacoRef.current.Uri.parse(modelPath(path)));
    if (model && model.getValue() !== text) model.setValue(text);
    setTabs((old) => old.map((t) => (t.path !== path ? t : asSaved ? { ...t, saved: text, draft: text, sha256: asSaved.sha256 } : { ...t, draft: text })));
  };

  const dropRestoredTab = useCallback((path: string) => {
    setTabs((old) => old.filter((t) => t.path !== path));
    setActivePath((active) => (active === path ? (tabsRef.current.find((t) => t.path !== path)?.path ?? null) : active));
  }, []);
  useEditorState({ sessionId, tabs, activePath, editor: codeEditor, monaco: monacoRef.current, modelPath, openFile, setActivePath, dropTab: dropRestoredTab });

  // ---- runs ----
  const reloadRuns = useCallback(async () => {
    try {
      setRuns(await listRuns({ sessionId, limit: 50 }));
    } catch {
      // shown as stale; the dashboard has the error state
    }
  }, [sessionId]);

  const adoptRun = useCallback(
    (id: string) => {
      setRunId(id);
      try {
        window.sessionStorage.setItem(runKey(sessionId), id);
      } catch {
        // private mode: the output is still shown until reload
      }
    },
    [sessionId],
  );

  const run = useCallback(async () => {
    const path = activeRef.current;
    const interpreter = path ? interpreterFor(path) : null;
    if (!path || !interpreter || runPending) return;
    if (!(await save())) return;
    setBottom("output");
    setRunPending(true);
    setNotice(null);
    let adopted: string | null = null;
    const adopt = (id: string) => {
      if (adopted) return;
      adopted = id;
      adoptRun(id);
    };
    try {
      // The call answers when the script ends; the runner names its run as soon as it exists (lib/api.ts A2).
      const result = await callToolLive(sessionId, "run_script", { interpreter, script: path }, { onParked: setParked, onRunStarted: adopt });
      setParked(null);
      if (result.runId) adopt(result.runId);
      if (result.error?.code === "cancelled") setNotice({ tone: "bad", text: "Cancelled: the call did not run" });
      else if (!result.runId && !result.ok) setNotice({ tone: "bad", text: result.error?.message ?? result.output });
    } catch (error) {
      setNotice({ tone: "bad", text: `Run failed: ${errorMessage(error)}` });
    } finally {
      setRunPending(false);
      void reloadRuns();
    }
  }, [sessionId, runPending, save, adoptRun, reloadRuns]);

  // Stop: kills the run's process group; the run ends as aborted (POST /api/runs/:id/cancel).
  const stop = useCallback(async () => {
    if (!runId) return;
    setStopping(true);
    try {
      await cancelRun(runId);
    } catch (error) {
      setNotice({ tone: "bad", text: `Stop failed: ${errorMessage(error)}` });
    } finally {
      setStopping(false);
    }
  }, [runId]);

  // Cancel: withdraws one's own parked call; the waiting Run then ends as cancelled.
  const cancelParked = useCallback(async (request: { approvalId: string; sha256: string }) => {
    try {
      await cancelApproval(request.approvalId, request.sha256);
      setParked(null);
    } catch (error) {
      setNotice({ tone: "bad", text: `Cancel failed: ${errorMessage(error)}` });
    }
  }, []);

  const changeAutonomy = useCallback(
    async (autonomy: Autonomy) => {
      try {
        const updated = await setSessionAutonomy(sessionId, autonomy);
        session.setData((old) => (old ? { ...old, ...updated } : updated));
        setNotice({ tone: "ok", text: `Autonomy is now ${autonomy}` });
      } catch (error) {
        setNotice({ tone: "bad", text: `Autonomy not changed: ${errorMessage(error)}` });
      }
    },
    [sessionId],
  );

  // Restore the last run's output after a reload.
  useEffect(() => {
    try {
      const saved = window.sessionStorage.getItem(runKey(sessionId));
      if (saved) {
        setRunId(saved);
        setBottom("output");
      }
    } catch {
      // no storage
    }
    // The server sent the tree with the page; the socket join below lists it again to catch any change since.
    if (!firstView?.files) void reloadFiles();
    void reloadRuns();
  }, [sessionId, reloadFiles, reloadRuns]);

  // The editor's files are preloaded with the page (lib/preloads.tsx) and parsed off the main thread; it
  // is created once the tree is shown and the live connection is up, so the handshake does not wait
  // behind Monaco's 0.3-0.4 s of evaluation (measured: the editor is not ready later for it, and the
  // page is live 0.15 s sooner). Never later than 1.5 s after mount.
  const [editorDue, setEditorDue] = useState(false);
  useEffect(() => {
    if (editorDue) return;
    if (!filesLoading && connected) return setEditorDue(true);
    const timer = setTimeout(() => setEditorDue(true), 1500);
    return () => clearTimeout(timer);
  }, [editorDue, filesLoading, connected]);

  // The terminal comes after the editor: loading xterm and laying it out is about 0.25 s of main-thread
  // work that would otherwise hold the editor up. It starts when the editor is up, when the user goes to
  // it, or 4 s after mount if the editor never comes.
  const [terminalDue, setTerminalDue] = useState(false);
  useEffect(() => {
    if (terminalDue) return;
    const timer = setTimeout(() => setTerminalDue(true), 4000);
    return () => clearTimeout(timer);
  }, [terminalDue]);
  const startTerminalSoon = useCallback(() => {
    // After the frame that shows the editor, so the first file's text is not held up either.
    if ("requestIdleCallback" in window) requestIdleCallback(() => setTerminalDue(true), { timeout: 500 });
    else setTimeout(() => setTerminalDue(true), 100);
  }, []);
  const showTerminal = useCallback(() => {
    setTerminalDue(true);
    setBottom("terminal");
  }, []);

  // ---- live: files, runs, session status ----
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
        void reloadFiles();
        // "." means "anything may have changed" (a command ran): re-read every clean open file.
        const open = tabsRef.current.map((t) => t.path);
        const reread = paths.includes(".") ? open : paths.filter((path) => open.includes(path));
        for (const path of reread) void readInto(path, { onlyIfClean: true }).catch(() => undefined);
      }, 150);
    };
    const onRunStatus = (event: RunStatusEvent) => {
      if (event.sessionId && event.sessionId !== sessionId) return;
      void reloadRuns();
    };
    const onSession = (event: SessionStatusEvent) => {
      if (event.sessionId !== sessionId) return;
      session.setData((old) =>
        old
          ? {
              ...old,
              status: event.status,
              terminationCause: event.terminationCause ?? old.terminationCause,
              ...(event.autonomy ? { autonomy: event.autonomy as Autonomy, autonomyChangedBy: event.autonomyChangedBy ?? null } : {}),
            }
          : old,
      );
    };
    socket.on("file:changed", onFile);
    socket.on("run:status", onRunStatus);
    socket.on("session:status", onSession);
    // Once joined, read the tree again: a change made before the join took effect is not missed.
    const stopConnect = onEveryConnect(socket, () =>
      socket.emit("session:join", { sessionId }, (err) => {
        if (!err) void reloadFiles();
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
  }, [sessionId, reloadFiles, readInto, reloadRuns]);

  useEffect(() => {
    if (stream.status && stream.status !== "running") void reloadRuns();
  }, [stream.status, reloadRuns]);

  // ---- keyboard: Ctrl/Cmd+S save, Ctrl/Cmd+Enter run, Ctrl+` terminal ----
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      const mod = event.ctrlKey || event.metaKey;
      if (mod && event.key.toLowerCase() === "s") {
        event.preventDefault();
        event.stopPropagation();
        void save();
      } else if (mod && event.key === "Enter") {
        event.preventDefault();
        event.stopPropagation();
        void run();
      } else if (event.ctrlKey && (event.key === "`" || event.code === "Backquote")) {
        event.preventDefault();
        event.stopPropagation();
        showTerminal();
        requestAnimationFrame(() => terminalRef.current?.focus());
      }
    };
    window.addEventListener("keydown", onKey, true);
    return () => window.removeEventListener("keydown", onKey, true);
  }, [save, run, showTerminal]);

  useEffect(() => {
    if (!notice) return;
    const timer = setTimeout(() => setNotice(null), notice.tone === "ok" ? 2500 : 8000);
    return () => clearTimeout(timer);
  }, [notice]);

  useEffect(() => {
    const onBeforeUnload = (event: BeforeUnloadEvent) => {
      // An open conflict bar holds the user's version after a Reload: leaving would lose it too.
      if (conflictRef.current || tabsRef.current.some((t) => t.kind === "text" && t.draft !== t.saved)) event.preventDefault();
    };
    window.addEventListener("beforeunload", onBeforeUnload);
    return () => window.removeEventListener("beforeunload", onBeforeUnload);
  }, []);

  if (session.error && !session.data) {
    return (
      <main className="page">
        <ErrorState message={session.error} onRetry={() => void session.reload()} />
        <Link href="/">← All sessions</Link>
      </main>
    );
  }

  const interpreter = activePath ? interpreterFor(activePath) : null;
  const stopped = session.data && ["stopped", "failed", "deleted"].includes(session.data.status);
  const running = !!runId && stream.status === "running";
  const waitingForApproval = runPending && !!parked;
  const isOperator = me?.role === "operator" || me?.role === "admin";
  const isOwner = !!me && !!session.data?.ownerId && session.data.ownerId === me.userId;
  const canChangeAutonomy = !!session.data && (isOperator || (isOwner && me?.role === "developer"));
  const autonomyAllowed = (level: Autonomy) => isOperator || AUTONOMY_OPTIONS.indexOf(level) <= AUTONOMY_OPTIONS.indexOf(DEVELOPER_MAX_AUTONOMY);

  return (
    <div className="ide" data-testid="ide" style={panes.style}>
      <div className="ide-toolbar">
        <Link href="/" className="muted">
          Sessions
        </Link>
        <span className="muted">/</span>
        <strong data-testid="session-title">{session.data?.name ?? shortId(sessionId)}</strong>
        {session.data ? (
          <>
            <StatusBadge value={session.data.status} testId="session-status" />
            {session.data.terminationCause ? <span className="muted tiny">({session.data.terminationCause.replaceAll("_", " ")})</span> : null}
            {canChangeAutonomy ? (
              <label className="autonomy-pick" title={`${AUTONOMY_HELP[session.data.autonomy]}${session.data.autonomyChangedBy ? ` (set by ${session.data.autonomyChangedBy})` : ""}`}>
                <span className="muted tiny">autonomy</span>
                <select value={session.data.autonomy} onChange={(event) => void changeAutonomy(event.target.value as Autonomy)} data-testid="session-autonomy-select">
                  {AUTONOMY_OPTIONS.map((level) => (
                    <option key={level} value={level} disabled={!autonomyAllowed(level)} title={AUTONOMY_HELP[level]}>
                      {level}
                      {autonomyAllowed(level) ? "" : " (operator)"}
                    </option>
                  ))}
                </select>
              </label>
            ) : (
              <span className="badge muted" title={`autonomy: ${AUTONOMY_HELP[session.data.autonomy]}`} data-testid="session-autonomy">
                {session.data.autonomy}
              </span>
            )}
            <span className="badge muted" title="network">
              net: {session.data.network}
            </span>
          </>
        ) : null}
        <SocketStatus state={socketState} />
        <div className="spacer" />
        {notice ? (
          <span className={`notice ${notice.tone}`} data-testid="notice">
            {notice.text}
          </span>
        ) : null}
        <button className="btn small" onClick={() => void save()} disabled={!activeTab || activeTab.kind !== "text" || !dirty.has(activeTab.path) || saving} data-testid="save" title="Save (Ctrl/Cmd+S)">
          {saving ? "Saving…" : "Save"}
        </button>
        {running ? (
          <button className="btn danger small" onClick={() => void stop()} disabled={stopping} data-testid="stop" title="Stop: kill the run's processes (outcome aborted)">
            {stopping ? "Stopping…" : "■ Stop"}
          </button>
        ) : waitingForApproval ? (
          <button className="btn small" onClick={() => void cancelParked(parked!)} data-testid="cancel-parked" title="Withdraw this call: it will not run">
            Cancel
          </button>
        ) : (
          <button
            className="btn primary small"
            onClick={() => void run()}
            disabled={!interpreter || runPending || !!stopped}
            data-testid="run"
            title={interpreter ? `Run with ${interpreter} (Ctrl/Cmd+Enter)` : "Open a .py, .js, .sh, .rb, .pl, .r, .jl or .m file to run it"}
          >
            {runPending ? "Starting…" : `▶ Run${interpreter ? ` (${interpreter})` : ""}`}
          </button>
        )}
      </div>
      <ParkedCalls
        mine={parked}
        pending={approvals.pending}
        me={me}
        canDecide={isOperator}
        onCancel={(request) => void cancelParked(request)}
        onDecide={async (request, decision) => {
          try {
            await decideApproval(request.id, decision, request.sha256);
            approvals.markDecided(request.id);
          } catch (error) {
            setNotice({ tone: "bad", text: `${decision === "approve" ? "Approve" : "Deny"} failed: ${errorMessage(error)}` });
          }
        }}
      />
      <div className="ide-main">
        <FilesSidebar
          sessionId={sessionId}
          files={files}
          activePath={activePath}
          dirty={dirty}
          onOpen={openFile}
          onCreate={createFile}
          onChanged={() => void reloadFiles()}
          onParked={setParked}
          loading={filesLoading}
          error={filesError}
          commands={[
            { id: "run", title: "Run the open file", keys: "Ctrl+Enter", enabled: !!interpreter && !runPending, run: () => void run() },
            { id: "stop", title: "Stop the run", enabled: running, run: () => void stop() },
            { id: "save", title: "Save", keys: "Ctrl+S", run: () => void save() },
            { id: "terminal", title: "Show terminal", keys: "Ctrl+`", run: showTerminal },
            // The terminal panel opens terminals itself; its + button is the one way in.
            { id: "new-terminal", title: "New terminal", run: () => (showTerminal(), requestAnimationFrame(() => document.querySelector<HTMLButtonElement>('[data-testid="terminal-new"]')?.click())) },
            { id: "runs", title: "Show this session's runs", run: () => setBottom("runs") },
            { id: "approvals", title: "Open approvals", run: () => window.location.assign("/approvals") },
          ]}
        />
        <Splitter between="columns" label="File tree width" testId="sidebar-splitter" {...panes.sidebar} />
        <section className="editor-area">
          <div className="tabs" role="tablist" data-testid="editor-tabs">
            {tabs.map((tab) => (
              <div
                key={tab.path}
                role="tab"
                aria-selected={tab.path === activePath}
                className={`tab${tab.path === activePath ? " active" : ""}`}
                onClick={() => setActivePath(tab.path)}
                onAuxClick={(event) => {
                  if (event.button === 1) closeTab(tab.path);
                }}
                data-testid="editor-tab"
                data-path={tab.path}
                data-dirty={dirty.has(tab.path) ? "true" : "false"}
                title={tab.path}
              >
                <span>{tab.path.split("/").pop()}</span>
                {dirty.has(tab.path) ? (
                  <span className="dot" data-testid="tab-dirty" aria-label="unsaved changes" />
                ) : null}
                <button
                  className="tab-close"
                  aria-label={`Close ${tab.path}`}
                  onClick={(event) => {
                    event.stopPropagation();
                    closeTab(tab.path);
                  }}
                >
                  ×
                </button>
              </div>
            ))}
          </div>
          {conflict && textTab && conflict.path === textTab.path ? (
            <SaveConflictBar
              conflict={conflict}
              monaco={monacoRef.current}
              language={languageFor(conflict.path)}
              busy={saving}
              onOverwrite={() => void writeTab(conflict.path, conflict.diskSha256)}
              onReload={() => {
                setConflict({ ...conflict, mine: textTab.draft, reloaded: true });
                setTabText(conflict.path, conflict.disk, { sha256: conflict.diskSha256 });
              }}
              onRestoreMine={() => {
                setTabText(conflict.path, conflict.mine);
                setConflict(null);
              }}
              onClose={() => setConflict(null)}
            />
          ) : null}
          <div className="editor-body">
            {textTab?.truncated ? (
              <div className="banner warn" data-testid="file-too-large">
                File too large to edit here: showing the first {EDITABLE_MAX_CHARS.toLocaleString()} characters, read-only.
              </div>
            ) : null}
            {/* One editor for the page, created before the first file opens and kept while other tabs show: opening
                a file is then a model switch, not an editor construction. Hidden (not removed) while no text file is active. */}
            {textTab || editorDue ? (
              <div className={`monaco-host${textTab ? "" : " parked"}`} data-testid="editor" aria-hidden={!textTab}>
                <CodeEditor
                  path={textTab ? modelPath(textTab.path) : NO_FILE_MODEL}
                  value={textTab ? textTab.saved : ""}
                  language={textTab ? languageFor(textTab.path) : "plaintext"}
                  readOnly={!textTab || !!textTab.truncated}
                  onChange={(value) => {
                    const path = textTab?.path;
                    if (path) setTabs((old) => old.map((t) => (t.path === path ? { ...t, draft: value } : t)));
                  }}
                  onMount={(editor, monaco) => {
                    monacoRef.current = monaco;
                    setCodeEditor(editor);
                    startTerminalSoon();
                  }}
                />
              </div>
            ) : null}
            {textTab ? null : (
              <div className="editor-overlay">
                {!activeTab ? (
                  <EmptyState title="No file open" testId="editor-empty">
                    Pick a file on the left or create one with +. <kbd>Ctrl/Cmd+S</kbd> saves, <kbd>Ctrl/Cmd+Enter</kbd> runs, <kbd>Ctrl+`</kbd> focuses the terminal.
                  </EmptyState>
                ) : activeTab.kind === "loading" ? (
                  <Spinner label={`Opening ${activeTab.path}…`} />
                ) : activeTab.kind === "binary" ? (
                  <EmptyState title="Binary file" testId="file-binary">
                    {activeTab.path} is not UTF-8 text, so it is not shown in the editor.
                  </EmptyState>
                ) : activeTab.kind === "too_large" ? (
                  <EmptyState title="File too large" testId="file-too-large">
                    {activeTab.message}
                  </EmptyState>
                ) : (
                  <ErrorState message={activeTab.message ?? "Could not open the file"} onRetry={() => void readInto(activeTab.path)} />
                )}
              </div>
            )}
          </div>
        </section>
      </div>
      <Splitter between="rows" label="Panel height" testId="bottom-splitter" {...panes.bottom} />
      <section className="bottom-panel">
        <div className="bottom-tabs" role="tablist">
          <button className={bottom === "terminal" ? "active" : ""} onClick={showTerminal} data-testid="tab-terminal">
            Terminal
          </button>
          <button className={bottom === "output" ? "active" : ""} onClick={() => setBottom("output")} data-testid="tab-output">
            Output
            {stream.status ? <StatusBadge value={stream.outcome ?? stream.status} /> : null}
          </button>
          <button className={bottom === "runs" ? "active" : ""} onClick={() => setBottom("runs")} data-testid="tab-runs">
            Runs {runs ? <span className="muted">({runs.length})</span> : null}
          </button>
          <button className={bottom === "ports" ? "active" : ""} onClick={() => setBottom("ports")} data-testid="tab-ports">
            Ports
          </button>
          <div className="spacer" />
          <span className="muted tiny hint">
            <kbd>Ctrl+`</kbd> terminal · <kbd>Ctrl/Cmd+Enter</kbd> run
          </span>
        </div>
        <div className="bottom-body">
          <div className={bottom === "terminal" ? "fill" : "hidden"}>
            <TerminalPanel ref={terminalRef} sessionId={sessionId} onParked={setParked} visible={bottom === "terminal"} start={terminalDue} />
          </div>
          <div className={bottom === "output" ? "fill output-pane" : "hidden"} data-testid="output-pane">
            {runId ? (
              <div className="run-head">
                <span className="muted">Run</span>
                <Link href={`/runs/${runId}`} className="mono" data-testid="run-link">
                  {shortId(runId)}
                </Link>
                <StatusBadge value={stream.status ?? (runPending ? "running" : null)} testId="run-status" />
                {stream.outcome ? <StatusBadge value={stream.outcome} testId="run-outcome" /> : null}
                {stream.exitCode !== null ? <span className="muted">exit {stream.exitCode}</span> : null}
                {stream.run?.durationMs ? <span className="muted">{formatDuration(stream.run.durationMs)}</span> : null}
              </div>
            ) : null}
            <OutputView chunks={stream.chunks} testId="run-output" empty={runId ? (runPending ? "Waiting for output…" : "") : runPending ? "Starting…" : "Run a script with ▶ Run (Ctrl/Cmd+Enter): its output streams here."} />
            <ResultImages details={(stream.run as { details?: unknown } | null)?.details} />
          </div>
          <div className={bottom === "runs" ? "fill scroll" : "hidden"}>
            <SessionRuns runs={runs} onOpen={(id) => adoptRun(id)} currentRunId={runId} onShow={() => setBottom("output")} />
          </div>
          <div className={bottom === "ports" ? "fill scroll" : "hidden"}>
            <PortsPanel sessionId={sessionId} visible={bottom === "ports"} />
          </div>
        </div>
      </section>
    </div>
  );
}

/**
 * The file tree's width and the bottom panel's height: dragged or moved with the keyboard on their
 * splitters, kept within what the window leaves the editor, and remembered for the next page load
 * (lib/ide/ide-layout.ts). The bottom panel is 36% of the window until it is first resized.
 */
function usePaneSizes(initial: IdeLayout) {
  const [layout, setLayout] = useState(initial);
  // Read after mount (the server does not know the window); until then the splitters only need some range.
  const [windowSize, setWindowSize] = useState<{ width: number; height: number } | null>(null);
  useEffect(() => {
    const measure = () => setWindowSize({ width: window.innerWidth, height: window.innerHeight });
    measure();
    window.addEventListener("resize", measure);
    return () => window.removeEventListener("resize", measure);
  }, []);
  const limits = windowSize ? ideLayoutLimits(windowSize) : { sidebar: SIDEBAR_RANGE, bottom: BOTTOM_RANGE };
  const bottomDefault = windowSize ? defaultBottomHeight(windowSize) : BOTTOM_RANGE.min;
  return {
    style: {
      "--sidebar-w": `${layout.sidebar}px`,
      ...(layout.bottom !== null ? { "--bottom-h": `${layout.bottom}px` } : {}),
    } as CSSProperties,
    sidebar: {
      size: layout.sidebar,
      ...limits.sidebar,
      initial: DEFAULT_IDE_LAYOUT.sidebar,
      onResize: (sidebar: number) => setLayout((old) => ({ ...old, sidebar })),
      onCommit: (sidebar: number) => saveIdeLayout({ ...layout, sidebar }),
    },
    bottom: {
      size: layout.bottom ?? bottomDefault,
      ...limits.bottom,
      initial: bottomDefault,
      onResize: (bottom: number) => setLayout((old) => ({ ...old, bottom })),
      onCommit: (bottom: number) => saveIdeLayout({ ...layout, bottom }),
    },
  };
}

function SessionRuns({ runs, onOpen, currentRunId, onShow }: { runs: Run[] | null; onOpen: (id: string) => void; currentRunId: string | null; onShow: () => void }) {
  if (!runs) return <Spinner label="Loading runs…" />;
  if (runs.length === 0) return <EmptyState title="No runs in this session yet">Runs of scripts and commands appear here with their outcome and receipt.</EmptyState>;
  return (
    <table className="table compact" data-testid="session-runs">
      <thead>
        <tr>
          <th>Run</th>
          <th>Tool</th>
          <th>Status</th>
          <th>Exit</th>
          <th>Duration</th>
          <th>Started</th>
          <th />
        </tr>
      </thead>
      <tbody>
        {runs.map((run) => (
          <tr key={run.id} className={run.id === currentRunId ? "selected" : undefined} data-testid="session-run-row">
            <td>
              <Link href={`/runs/${run.id}`} className="mono">
                {shortId(run.id)}
              </Link>
            </td>
            <td>{run.tool}</td>
            <td>
              <StatusBadge value={run.outcome ?? run.status} />
            </td>
            <td>{run.exitCode ?? "—"}</td>
            <td>{formatDuration(run.durationMs)}</td>
            <td className="muted">{formatRelative(run.startedAt)}</td>
            <td>
              <button
                className="link-btn"
                onClick={() => {
                  onOpen(run.id);
                  onShow();
                }}
              >
                show output
              </button>
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
