"use client";
import { Link } from "@/components/ui/link";
import { useCallback, useEffect, useRef, useState } from "react";
import { cancelApproval, decideApproval, errorMessage, getSession, setSessionAutonomy, type Autonomy, type Parked } from "@/lib/api";
import { interpreterFor } from "@/lib/languages";
import { getSocket, useSocketState } from "@/lib/socket";
import type { IdeFirstView } from "@/lib/runner";
import { pathsToReread } from "@/lib/ide/editor-tabs";
import { DEFAULT_IDE_LAYOUT, type IdeLayout } from "@/lib/ide/ide-layout";
import { shortcutLabel } from "@/lib/ide/keymap";
import { sessionRights, withSessionStatus, type IdeUser } from "@/lib/ide/session-rights";
import { useAsync } from "@/components/ui/use-async";
import { ErrorState } from "@/components/ui/states";
import { Splitter } from "@/components/ui/splitter";
import { ParkedCalls, usePendingApprovals } from "./parked-calls";
import { BottomPanel, type BottomTab } from "./bottom-panel";
import { EditorPane } from "./editor-pane";
import { FilesSidebar } from "./files-sidebar";
import { IdeToolbar } from "./ide-toolbar";
import type { TerminalHandle } from "./terminal-panel";
import { createFile } from "./tree-actions";
import { useEditorTabs } from "./use-editor-tabs";
import { useLoadSchedule } from "./use-load-schedule";
import { useNotice } from "./use-notice";
import { usePaneSizes } from "./use-pane-sizes";
import { useRun } from "./use-run";
import { useSave } from "./use-save";
import { useSessionLive } from "./use-session-live";
import { useShortcuts } from "./use-shortcuts";
import { useWorkspaceFiles } from "./use-workspace-files";

// Open the live connection as soon as this module runs, before React hydrates the page: the handshake
// then overlaps hydration instead of following it.
if (typeof window !== "undefined") getSocket();

export type { IdeUser };

/**
 * The IDE for one session, put together from its parts: the file list and open tabs (use-workspace-files,
 * use-editor-tabs), saving (use-save), running (use-run), the session's live room (use-session-live), the
 * shortcuts (use-shortcuts) and when the editor and the terminal load (use-load-schedule).
 */
export function Ide({ sessionId, me, firstView, layout }: { sessionId: string; me?: IdeUser; firstView?: IdeFirstView; layout?: IdeLayout }) {
  const panes = usePaneSizes(layout ?? DEFAULT_IDE_LAYOUT);
  const session = useAsync(() => getSession(sessionId), [sessionId], firstView?.session ?? undefined);
  const socketState = useSocketState();
  const files = useWorkspaceFiles(sessionId, firstView?.files);
  const editor = useEditorTabs(sessionId);
  const [notice, notify] = useNotice();
  const [parked, setParked] = useState<Parked | null>(null);
  const [bottom, setBottom] = useState<BottomTab>("terminal");
  const terminalRef = useRef<TerminalHandle>(null);
  const approvals = usePendingApprovals(sessionId);
  // The banner goes as soon as the call is decided (approval:decided), not when the call answers.
  useEffect(() => {
    if (parked && approvals.decided.has(parked.approvalId)) setParked(null);
  }, [parked, approvals.decided]);

  const save = useSave({ sessionId, editor, notify, onParked: setParked });
  const showOutput = useCallback(() => setBottom("output"), []);
  const activePathNow = useCallback(() => editor.latest.current.activePath, [editor.latest]);
  const run = useRun({ sessionId, activePath: activePathNow, save: save.save, showOutput, notify, onParked: setParked });
  const schedule = useLoadSchedule();
  const { startTerminal } = schedule;
  const showTerminal = useCallback(() => {
    startTerminal();
    setBottom("terminal");
  }, [startTerminal]);

  useSessionLive(sessionId, {
    reloadFiles: () => void files.reload(),
    filesChanged: (paths) => {
      const open = editor.latest.current.tabs.map((t) => t.path);
      for (const path of pathsToReread(paths, open)) void editor.readInto(path, { onlyIfClean: true }).catch(() => undefined);
    },
    runStatus: () => void run.reloadRuns(),
    sessionStatus: (event) => session.setData((old) => (old ? withSessionStatus(old, event) : old)),
  });

  useShortcuts({
    save: () => void save.save(),
    run: () => void run.run(),
    terminal: () => {
      showTerminal();
      requestAnimationFrame(() => terminalRef.current?.focus());
    },
  });

  // Cancel: withdraws one's own parked call; the waiting Run then ends as cancelled.
  const cancelParked = async (request: { approvalId: string; sha256: string }) => {
    try {
      await cancelApproval(request.approvalId, request.sha256);
      setParked(null);
    } catch (error) {
      notify({ tone: "bad", text: `Cancel failed: ${errorMessage(error)}` });
    }
  };

  const changeAutonomy = async (autonomy: Autonomy) => {
    try {
      const updated = await setSessionAutonomy(sessionId, autonomy);
      session.setData((old) => (old ? { ...old, ...updated } : updated));
      notify({ tone: "ok", text: `Autonomy is now ${autonomy}` });
    } catch (error) {
      notify({ tone: "bad", text: `Autonomy not changed: ${errorMessage(error)}` });
    }
  };

  const newFile = async (path: string) => {
    const made = await createFile(sessionId, path, { onParked: setParked }).finally(() => setParked(null));
    files.add(made);
    editor.openFile(made);
  };

  if (session.error && !session.data) {
    return (
      <main className="page">
        <ErrorState message={session.error} onRetry={() => void session.reload()} />
        <Link href="/">← All sessions</Link>
      </main>
    );
  }

  const { activeTab } = editor;
  const interpreter = editor.activePath ? interpreterFor(editor.activePath) : null;
  const rights = sessionRights(me, session.data);

  return (
    <div className="ide" data-testid="ide" style={panes.style}>
      <IdeToolbar
        sessionId={sessionId}
        session={session.data}
        socketState={socketState}
        rights={rights}
        onChangeAutonomy={(autonomy) => void changeAutonomy(autonomy)}
        notice={notice}
        controls={{
          canSave: !!activeTab && activeTab.kind === "text" && editor.dirty.has(activeTab.path),
          saving: save.saving,
          onSave: () => void save.save(),
          interpreter,
          runPending: run.runPending,
          stopped: !!session.data && ["stopped", "failed", "deleted"].includes(session.data.status),
          onRun: () => void run.run(),
          running: run.running,
          stopping: run.stopping,
          onStop: () => void run.stop(),
          waitingForApproval: run.runPending && !!parked,
          onCancelParked: () => parked && void cancelParked(parked),
        }}
      />
      <ParkedCalls
        mine={parked}
        pending={approvals.pending}
        me={me}
        canDecide={rights.isOperator}
        onCancel={(request) => void cancelParked(request)}
        onDecide={async (request, decision) => {
          try {
            await decideApproval(request.id, decision, request.sha256);
            approvals.markDecided(request.id);
          } catch (error) {
            notify({ tone: "bad", text: `${decision === "approve" ? "Approve" : "Deny"} failed: ${errorMessage(error)}` });
          }
        }}
      />
      <div className="ide-main">
        <FilesSidebar
          tree={{
            sessionId,
            files: files.files,
            activePath: editor.activePath,
            dirty: editor.dirty,
            onOpen: editor.openFile,
            onCreate: newFile,
            onChanged: () => void files.reload(),
            onParked: setParked,
            loading: files.loading,
            error: files.error,
          }}
          commands={[
            { id: "run", title: "Run the open file", keys: shortcutLabel("run"), enabled: !!interpreter && !run.runPending, run: () => void run.run() },
            { id: "stop", title: "Stop the run", enabled: run.running, run: () => void run.stop() },
            { id: "save", title: "Save", keys: shortcutLabel("save"), run: () => void save.save() },
            { id: "terminal", title: "Show terminal", keys: shortcutLabel("terminal"), run: showTerminal },
            // The terminal panel opens terminals itself; its + button is the one way in.
            { id: "new-terminal", title: "New terminal", run: () => (showTerminal(), requestAnimationFrame(() => document.querySelector<HTMLButtonElement>('[data-testid="terminal-new"]')?.click())) },
            { id: "runs", title: "Show this session's runs", run: () => setBottom("runs") },
            { id: "approvals", title: "Open approvals", run: () => window.location.assign("/approvals") },
          ]}
        />
        <Splitter between="columns" label="File tree width" testId="sidebar-splitter" {...panes.sidebar} />
        <EditorPane editor={editor} save={save} onEditorMounted={schedule.editorMounted} />
      </div>
      <Splitter between="rows" label="Panel height" testId="bottom-splitter" {...panes.bottom} />
      <BottomPanel
        sessionId={sessionId}
        tab={bottom}
        onTab={setBottom}
        onShowTerminal={showTerminal}
        run={run}
        terminalRef={terminalRef}
        terminalDue={schedule.terminalDue}
        onParked={setParked}
      />
    </div>
  );
}
