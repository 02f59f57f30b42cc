"use client";
// Rendered only after loadMonaco() has handed our bundle to @monaco-editor/react (code-editor.tsx).
import { Editor, type OnMount } from "@monaco-editor/react";
import type { EditorModule } from "./load-monaco";

export type MonacoEditorProps = {
  /** One model per path: switching tabs keeps each file's undo stack and cursor. */
  path: string;
  value: string;
  language: string;
  readOnly?: boolean;
  onChange?: (value: string) => void;
  onMount?: OnMount;
  /** The bundle's EDITOR_OPTIONS (monaco/entry.ts), handed over by code-editor.tsx once it has loaded. */
  options: EditorModule["EDITOR_OPTIONS"];
};

export default function MonacoEditor({ path, value, language, readOnly, onChange, onMount, options }: MonacoEditorProps) {
  return (
    <Editor
      path={path}
      defaultValue={value}
      defaultLanguage={language}
      language={language}
      theme="berth-dark"
      onChange={(next) => onChange?.(next ?? "")}
      onMount={(editor, instance) => {
        editor.getContainerDomNode().setAttribute("data-monaco-ready", "true");
        onMount?.(editor, instance);
      }}
      loading={<div className="state loading">Loading editor…</div>}
      options={{ ...options, readOnly }}
    />
  );
}
