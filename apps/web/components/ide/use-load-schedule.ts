"use client";
import { useCallback, useEffect, useState } from "react";

/**
 * When the page's two heavy parts start, so the first visit is quick: the editor's files are preloaded
 * with the page (lib/preloads.tsx) and parsed off the main thread; it is created once the tree is shown
 * and the live connection is up, so the handshake does not wait behind Monaco's 0.3-0.4 s of evaluation
 * (measured: the editor is not ready later for it, and the page is live 0.15 s sooner), and never later
 * than 1.5 s after mount. The terminal comes after the editor: loading xterm and laying it out is about
 * 0.25 s of main-thread work that would otherwise hold the editor up. It starts when the editor is up
 * (`editorMounted`), when the user goes to it (`startTerminal`), or 4 s after mount if the editor never comes.
 */
export function useLoadSchedule({ filesShown, connected }: { filesShown: boolean; connected: boolean }) {
  const [editorDue, setEditorDue] = useState(false);
  useEffect(() => {
    if (editorDue) return;
    if (filesShown && connected) return setEditorDue(true);
    const timer = setTimeout(() => setEditorDue(true), 1500);
    return () => clearTimeout(timer);
  }, [editorDue, filesShown, connected]);

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
