"use client";
import dynamic from "next/dynamic";
import { ErrorState } from "@/components/ui/states";
import { loadEditorModule } from "./load-monaco";
import MonacoEditor, { type MonacoEditorProps } from "./monaco-editor";

/**
 * Monaco only in the browser (it touches `window` at import), from our own bundle. The React wrapper is
 * small and comes with the page: as a chunk of its own it was one more fetch after hydration, when the
 * editor is created.
 */
export const CodeEditor = dynamic<Omit<MonacoEditorProps, "options">>(
  async () => {
    let options: MonacoEditorProps["options"];
    try {
      ({ EDITOR_OPTIONS: options } = await loadEditorModule());
    } catch (error) {
      const message = `Could not load the editor: ${(error as Error).message}`;
      return function EditorUnavailable() {
        return <ErrorState message={message} onRetry={() => window.location.reload()} />;
      };
    }
    return function BerthEditor(props: Omit<MonacoEditorProps, "options">) {
      return <MonacoEditor {...props} options={options} />;
    };
  },
  { ssr: false, loading: () => <div className="state loading">Loading editor…</div> },
);
