"use client";
import { useCallback, useMemo, useRef, useState } from "react";
import type { OnMount } from "@monaco-editor/react";
import { callTool, errorMessage } from "@/lib/api";
import { EDITABLE_MAX_CHARS, NO_TABS, dirtyPaths, fileReadOf, findTab, isDirty, reduceEditorTabs } from "@/lib/ide/editor-tabs";
import { useEditorState } from "./use-editor-state";
import { useSyncedReducer } from "./use-synced-reducer";

type CodeEditorInstance = Parameters<OnMount>[0];
export type MonacoApi = Parameters<OnMount>[1];

/**
 * The open files (lib/ide/editor-tabs.ts) and the one editor that shows them: a tab is read with
 * read_file when opened, its Monaco model (one per path) follows what is read, and the open tabs come
 * back after a reload (use-editor-state.ts).
 */
export function useEditorTabs(sessionId: string) {
  const [state, dispatch, latest] = useSyncedReducer(reduceEditorTabs, NO_TABS);
  const monacoRef = useRef<MonacoApi | null>(null);
  const [editor, setEditor] = useState<CodeEditorInstance | null>(null);

  const modelPath = useCallback((path: string) => `file:///${sessionId}/${path}`, [sessionId]);
  const modelOf = useCallback(
    (path: string) => monacoRef.current?.editor.getModel(monacoRef.current.Uri.parse(modelPath(path))) ?? null,
    [modelPath],
  );
  /** Puts text into a tab's editor model; the editor's onChange then sets the active tab's draft. */
  const showText = useCallback(
    (path: string, text: string) => {
      const model = modelOf(path);
      if (model && model.getValue() !== text) model.setValue(text);
    },
    [modelOf],
  );

  /** Reads `path` into its tab; `onlyIfClean` leaves a tab with unsaved changes as it is. */
  const readInto = useCallback(
    async (path: string, opts: { onlyIfClean?: boolean } = {}) => {
      const read = fileReadOf(await callTool(sessionId, "read_file", { path, maxChars: EDITABLE_MAX_CHARS }));
      const tab = findTab(latest.current, path);
      if (!tab || (opts.onlyIfClean && isDirty(tab))) return;
      if (read.ok) showText(path, read.content);
      dispatch({ type: "read", path, read });
    },
    [sessionId, latest, showText, dispatch],
  );

  const openFile = useCallback(
    (path: string) => {
      const isNew = !findTab(latest.current, path);
      dispatch({ type: "open", path });
      if (!isNew) return;
      void readInto(path).catch((error: unknown) => dispatch({ type: "failed", path, message: errorMessage(error) }));
    },
    [latest, dispatch, readInto],
  );

  const closeTab = useCallback(
    (path: string) => {
      const tab = findTab(latest.current, path);
      if (tab && isDirty(tab) && !window.confirm(`${path} has unsaved changes. Close it anyway?`)) return;
      dispatch({ type: "close", path });
      modelOf(path)?.dispose();
    },
    [latest, dispatch, modelOf],
  );

  /** Puts text into a tab: as the draft, or (`asSaved`) as the version on disk too. */
  const setTabText = useCallback(
    (path: string, text: string, asSaved?: { sha256: string | null }) => {
      showText(path, text);
      dispatch(asSaved ? { type: "reset", path, text, sha256: asSaved.sha256 } : { type: "draft", path, text });
    },
    [showText, dispatch],
  );

  const activate = useCallback((path: string) => dispatch({ type: "activate", path }), [dispatch]);
  const setDraft = useCallback((path: string, text: string) => dispatch({ type: "draft", path, text }), [dispatch]);
  const markSaved = useCallback((path: string, text: string, sha256: string | null) => dispatch({ type: "saved", path, text, sha256 }), [dispatch]);
  const dropTab = useCallback((path: string) => dispatch({ type: "drop", path }), [dispatch]);
  const onEditorMount = useCallback((mounted: CodeEditorInstance, monaco: MonacoApi) => {
    monacoRef.current = monaco;
    setEditor(mounted);
  }, []);

  useEditorState({ sessionId, tabs: state.tabs, activePath: state.activePath, editor, monaco: monacoRef.current, modelPath, openFile, setActivePath: activate, dropTab });

  const dirty = useMemo(() => dirtyPaths(state.tabs), [state.tabs]);
  const activeTab = findTab(state, state.activePath);
  return {
    tabs: state.tabs,
    activePath: state.activePath,
    activeTab,
    /** The active tab when it is text the editor shows. */
    textTab: activeTab?.kind === "text" ? activeTab : null,
    dirty,
    /** The state as of the last change, for handlers that run between renders. */
    latest,
    monaco: monacoRef.current,
    modelPath,
    openFile,
    closeTab,
    readInto,
    setTabText,
    setDraft,
    markSaved,
    activate,
    onEditorMount,
  };
}

export type EditorTabsApi = ReturnType<typeof useEditorTabs>;
