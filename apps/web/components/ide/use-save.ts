"use client";
import { useCallback, useEffect, useRef, useState } from "react";
import { callTool, errorMessage, type Parked } from "@/lib/api";
import { EDITABLE_MAX_CHARS, editableTab, findTab, isDirty } from "@/lib/ide/editor-tabs";
import type { EditorTabsApi } from "./use-editor-tabs";
import type { Notice } from "./use-notice";
import type { SaveConflict } from "./save-conflict";

type UseSaveOptions = {
  sessionId: string;
  editor: EditorTabsApi;
  notify: (notice: Notice) => void;
  onParked: (parked: Parked | null) => void;
};

/**
 * Saving with write_file's `expectedSha256`: a file changed on disk since it was read is not overwritten
 * but opens the conflict bar (save-conflict.tsx), which holds both versions until it is closed. Leaving
 * the page with unsaved changes, or with the bar open, asks first.
 */
export function useSave({ sessionId, editor, notify, onParked }: UseSaveOptions) {
  const [saving, setSaving] = useState(false);
  const [conflict, setConflict] = useState<SaveConflict | null>(null);
  const conflictRef = useRef<SaveConflict | null>(null);
  conflictRef.current = conflict;
  const { latest, markSaved, setTabText } = editor;

  /** Writes the tab's draft if the file still is the version it loaded (or `expected`); a conflict opens the bar. */
  const writeTab = useCallback(
    async (path: string, expected?: string | null): Promise<boolean> => {
      const tab = editableTab(latest.current, path);
      if (!tab) return false;
      const content = tab.draft;
      const expectedSha256 = expected !== undefined ? expected : (tab.sha256 ?? null);
      setSaving(true);
      try {
        const result = await callTool(sessionId, "write_file", { path, content, expectedSha256 }, { onParked });
        onParked(null);
        if (!result.ok && result.error?.code === "conflict") {
          const disk = await callTool(sessionId, "read_file", { path, maxChars: EDITABLE_MAX_CHARS });
          const details = disk.details as { content?: string; sha256?: string } | undefined;
          // Gone from disk: an Overwrite then writes without a check (null), bringing the user's version back.
          setConflict({ path, disk: disk.ok ? (details?.content ?? "") : "", diskSha256: disk.ok ? (details?.sha256 ?? null) : null, mine: content, reloaded: false });
          notify({ tone: "bad", text: `Not saved: ${path} changed on disk` });
          return false;
        }
        if (!result.ok) throw new Error(result.error?.message ?? result.output);
        markSaved(path, content, (result.details as { sha256?: string } | undefined)?.sha256 ?? null);
        setConflict((c) => (c?.path === path ? null : c));
        notify({ tone: "ok", text: `Saved ${path}` });
        return true;
      } catch (error) {
        notify({ tone: "bad", text: `Save failed: ${errorMessage(error)}` });
        return false;
      } finally {
        setSaving(false);
      }
    },
    [sessionId, latest, markSaved, notify, onParked],
  );

  /** Saves the active tab; true when it is saved (nothing to do counts), false for a tab that cannot be. */
  const save = useCallback(async (): Promise<boolean> => {
    const path = latest.current.activePath;
    const tab = editableTab(latest.current, path);
    if (!path || !tab) return false;
    if (!isDirty(tab)) return true;
    return writeTab(path);
  }, [latest, writeTab]);

  // The conflict bar's buttons.
  const overwrite = useCallback(() => {
    if (conflictRef.current) void writeTab(conflictRef.current.path, conflictRef.current.diskSha256);
  }, [writeTab]);
  const reload = useCallback(() => {
    const open = conflictRef.current;
    const tab = open ? findTab(latest.current, open.path) : null;
    if (!open || !tab) return;
    setConflict({ ...open, mine: tab.draft, reloaded: true });
    setTabText(open.path, open.disk, { sha256: open.diskSha256 });
  }, [latest, setTabText]);
  const restoreMine = useCallback(() => {
    const open = conflictRef.current;
    if (!open) return;
    setTabText(open.path, open.mine);
    setConflict(null);
  }, [setTabText]);
  const dismiss = useCallback(() => setConflict(null), []);

  useEffect(() => {
    const onBeforeUnload = (event: BeforeUnloadEvent) => {
      // An open conflict bar holds the user's version after a Reload: leaving would lose it too.
      if (conflictRef.current || latest.current.tabs.some(isDirty)) event.preventDefault();
    };
    window.addEventListener("beforeunload", onBeforeUnload);
    return () => window.removeEventListener("beforeunload", onBeforeUnload);
  }, [latest]);

  return { saving, conflict, save, overwrite, reload, restoreMine, dismiss };
}

export type SaveApi = ReturnType<typeof useSave>;
