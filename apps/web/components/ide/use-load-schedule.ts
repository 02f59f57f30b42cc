"use client";
import { useCallback, useEffect, useState } from "react";
import { loadMonaco } from "@/components/editor/load-monaco";

/**
 * When the page's two heavy parts start, so the first visit is quick. The editor's files are preloaded
 * with the page (lib/preloads.tsx) and parsed off the main thread; Monaco's code is evaluated (0.25-0.3 s
 * of main thread) as soon as the page has hydrated, in the gap where the page would otherwise wait idle for
 * the live socket and the tree (measured: 0.3 s of idle main thread before the editor started when it
 * waited for the socket). The editor is created once the tree is shown (at once when the server sent it
 * with the page), so listing the files is not held up by it, and never later than 1.5 s after mount. The
 * terminal comes after the editor: loading xterm and laying it out is about 0.25 s of main-thread work that
 * would otherwise hold the editor up. It starts when the editor is up (`editorMounted`), when the user goes
 * to it (`startTerminal`), or 4 s after mount if the editor never comes.
 */
export function useLoadSchedule({ filesShown }: { filesShown: boolean }) {
  useEffect(() => {
    // A failed load is shown, with a retry, by the editor itself when it is created (code-editor.tsx).
    loadMonaco().catch(() => undefined);
  }, []);

  const [editorDue, setEditorDue] = useState(false);
  useEffect(() => {
    if (editorDue) return;
    if (filesShown) return setEditorDue(true);
    const timer = setTimeout(() => setEditorDue(true), 1500);
    return () => clearTimeout(timer);
  }, [editorDue, filesShown]);

  const [terminalDue, setTerminalDue] = useState(false);
  useEffect(() => {
    if (terminalDue) return;
    const timer = setTimeout(() => setTerminalDue(true), 4000);
    return () => clearTimeout(timer);
  }, [terminalDue]);
  const editorMounted = useCallback(() => {
    // After the frame that shows the editor, so the first file's text is not held up either.
    if ("requestIdleCallback" in window) requestIdleCallback(() => setTerminalDue(true), { timeout: 500 });
    else setTimeout(() => setTerminalDue(true), 100);
  }, []);
  const startTerminal = useCallback(() => setTerminalDue(true), []);

  return { editorDue, terminalDue, editorMounted, startTerminal };
}
