"use client";
// Rendered only after loadMonaco() has handed our bundle to @monaco-editor/react (code-editor.tsx).
import { Editor, type OnMount } from "@monaco-editor/react";

export type MonacoEditorProps = {
  /** One model per path: switching tabs keeps each file's undo stack and cursor. */
  path: string;
  value: string;
  language: string;
  readOnly?: boolean;
  onChange?: (value: string) => void;
  onMount?: OnMount;
};

export default function MonacoEditor({ path, value, language, readOnly, onChange, onMount }: MonacoEditorProps) {
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
      options={{
        readOnly,
        fontFamily: '"JetBrains Mono Variable", monospace',
        fontSize: 13,
        fontLigatures: true,
        minimap: { enabled: false },
        scrollBeyondLastLine: false,
        automaticLayout: true,
        tabSize: 4,
        renderWhitespace: "selection",
        smoothScrolling: true,
        padding: { top: 8 },
      }}
    />
  );
}
