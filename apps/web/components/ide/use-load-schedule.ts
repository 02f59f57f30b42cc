"use client";
import { useCallback, useEffect, useState } from "react";

/**
 * When the terminal loads, so the first visit is quick. The editor needs no schedule: the server HTML
 * carries its slot and an early script that creates it as soon as Monaco's bundle has loaded, alongside
 * hydration (components/editor/ide-editor.tsx). The terminal comes after the editor: loading xterm and
 * laying it out is about 0.25 s of main-thread work that would otherwise hold the editor up. It starts
 * when the editor is up (`editorMounted`), when the user goes to it (`startTerminal`), or 4 s after mount
 * if the editor never comes.
 */
export function useLoadSchedule() {
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

  return { terminalDue, editorMounted, startTerminal };
}
