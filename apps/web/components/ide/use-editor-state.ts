"use client";
import { useEffect, useRef, useState } from "react";
import type { OnMount } from "@monaco-editor/react";
import { editorStateKey, parseEditorState, serializeEditorState, settledRestores, type TabView } from "@/lib/ide/editor-state";

type CodeEditorInstance = Parameters<OnMount>[0];
type MonacoApi = Parameters<OnMount>[1];

export type UseEditorStateOptions = {
  sessionId: string;
  tabs: readonly { path: string; kind: string }[];
  activePath: string | null;
  editor: CodeEditorInstance | null;
  monaco: MonacoApi | null;
  modelPath: (path: string) => string;
  openFile: (path: string) => void;
  setActivePath: (path: string) => void;
  /** Drops a restored tab whose file could not be opened (deleted since, say) without asking. */
  dropTab: (path: string) => void;
};

/**
 * Remembers the open tabs, the active tab and each tab's cursor and scroll in localStorage (per session) and
 * puts them back after a reload. A remembered file that no longer opens is dropped quietly.
 */
export function useEditorState({
  sessionId,
  tabs,
  activePath,
  editor,
  monaco,
  modelPath,
  openFile,
  setActivePath,
  dropTab,
}: UseEditorStateOptions) {
  const [restored, setRestored] = useState(false);
  const views = useRef(new Map<string, TabView>());
  const pending = useRef(new Map<string, TabView>());
  const restoring = useRef(new Set<string>());
  const latest = useRef({ tabs, activePath });
  latest.current = { tabs, activePath };

  const write = useRef(() => {});
  write.current = () => {
    const { tabs: open, activePath: active } = latest.current;
    const state = {
      tabs: open.map((t) => ({
        path: t.path,
        ...(views.current.has(t.path) ? { view: views.current.get(t.path) } : {}),
      })),
      active,
    };
    try {
      window.localStorage.setItem(editorStateKey(sessionId), serializeEditorState(state));
    } catch {
      // Storage full or disabled: the tabs just are not remembered.
    }
  };

  // Restore once, before anything is remembered (otherwise the empty first render would overwrite the state).
  useEffect(() => {
    let stored: ReturnType<typeof parseEditorState>;
    try {
      stored = parseEditorState(window.localStorage.getItem(editorStateKey(sessionId)));
    } catch {
      stored = null;
    }
    for (const tab of stored?.tabs ?? []) {
      if (tab.view) {
        views.current.set(tab.path, tab.view);
        pending.current.set(tab.path, tab.view);
      }
      restoring.current.add(tab.path);
      openFile(tab.path);
    }
    if (stored?.active) setActivePath(stored.active);
    setRestored(true);
    // Once per session page: later changes to the callbacks must not reopen anything.
  }, [sessionId]);

  // A restored tab that ended in an error (its file is gone) is closed; one that loaded is no longer watched.
  useEffect(() => {
    const { opened, failed } = settledRestores(tabs, restoring.current);
    for (const path of opened) restoring.current.delete(path);
    for (const path of failed) {
      restoring.current.delete(path);
      views.current.delete(path);
      pending.current.delete(path);
      dropTab(path);
    }
  }, [tabs, dropTab]);

  useEffect(() => {
    if (restored) write.current();
  }, [restored, tabs, activePath]);

  // Cursor and scroll of whichever file the editor shows; a restored file gets its view back when it shows.
  useEffect(() => {
    if (!editor || !monaco) return;
    const pathOfModel = (): string | null => {
      const uri = editor.getModel()?.uri.toString();
      if (!uri) return null;
      return latest.current.tabs.find((t) => monaco.Uri.parse(modelPath(t.path)).toString() === uri)?.path ?? null;
    };
    let timer: ReturnType<typeof setTimeout> | null = null;
    const record = () => {
      const path = pathOfModel();
      const position = editor.getPosition();
      if (!path || !position || pending.current.has(path)) return;
      views.current.set(path, {
        line: position.lineNumber,
        column: position.column,
        scrollTop: Math.round(editor.getScrollTop()),
        scrollLeft: Math.round(editor.getScrollLeft()),
      });
      if (!timer) timer = setTimeout(() => ((timer = null), write.current()), 250);
    };
    const apply = () => {
      const path = pathOfModel();
      const view = path ? pending.current.get(path) : undefined;
      if (!path || !view) return;
      // After the editor wrapper's own view-state restore for the new model, which would undo ours.
      setTimeout(() => {
        if (pathOfModel() !== path) return;
        pending.current.delete(path);
        editor.setPosition({ lineNumber: view.line, column: view.column });
        editor.setScrollTop(view.scrollTop);
        editor.setScrollLeft(view.scrollLeft);
      }, 0);
    };
    const flush = () => write.current();
    const subs = [
      editor.onDidChangeCursorPosition(record),
      editor.onDidScrollChange(record),
      editor.onDidChangeModel(apply),
    ];
    apply();
    window.addEventListener("pagehide", flush);
    return () => {
      for (const sub of subs) sub.dispose();
      window.removeEventListener("pagehide", flush);
      if (timer) clearTimeout(timer);
    };
  }, [editor, monaco, modelPath]);
}
