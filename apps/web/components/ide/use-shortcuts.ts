"use client";
import { useEffect, useRef } from "react";
import { shortcutFor, type IdeShortcut } from "@/lib/ide/keymap";

/**
 * Handles the IDE shortcuts given (lib/ide/keymap.ts says which keys mean what) before the editor or the
 * terminal sees them: in the capture phase, on the window. A shortcut without a handler here passes on.
 */
export function useShortcuts(handlers: Partial<Record<IdeShortcut, () => void>>) {
  const latest = useRef(handlers);
  latest.current = handlers;
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      const shortcut = shortcutFor(event);
      const handle = shortcut ? latest.current[shortcut] : undefined;
      if (!handle) return;
      event.preventDefault();
      event.stopPropagation();
      handle();
    };
    window.addEventListener("keydown", onKey, true);
    return () => window.removeEventListener("keydown", onKey, true);
  }, []);
}
