"use client";
import dynamic from "next/dynamic";
import { ErrorState } from "@/components/ui/states";
import { loadMonaco } from "./load-monaco";
import type { MonacoEditorProps } from "./monaco-editor";

/** Monaco only in the browser (it touches `window` at import), from our own bundle. */
export const CodeEditor = dynamic<MonacoEditorProps>(
  async () => {
    // Both at once: the React wrapper is a chunk of its own, and fetching it after Monaco is one more wait.
    const wrapper = import("./monaco-editor");
    try {
      await loadMonaco();
    } catch (error) {
      const message = `Could not load the editor: ${(error as Error).message}`;
      return function EditorUnavailable() {
        return <ErrorState message={message} onRetry={() => window.location.reload()} />;
      };
    }
    return (await wrapper).default;
  },
  { ssr: false, loading: () => <div className="state loading">Loading editor…</div> },
);
