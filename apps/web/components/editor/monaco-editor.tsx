"use client";
// Monaco from our own bundle: never the CDN @monaco-editor/loader would use by default.
import * as monaco from "monaco-editor";
import { Editor, loader, type OnMount } from "@monaco-editor/react";

declare global {
  interface Window {
    MonacoEnvironment?: { getWorker: (workerId: string, label: string) => Worker };
  }
}

if (typeof window !== "undefined" && !window.MonacoEnvironment) {
  window.MonacoEnvironment = {
    getWorker(_workerId, label) {
      switch (label) {
        case "json":
          return new Worker(new URL("monaco-editor/language/json/json.worker", import.meta.url), { type: "module" });
        case "css":
        case "scss":
        case "less":
          return new Worker(new URL("monaco-editor/language/css/css.worker", import.meta.url), { type: "module" });
        case "html":
        case "handlebars":
        case "razor":
          return new Worker(new URL("monaco-editor/language/html/html.worker", import.meta.url), { type: "module" });
        case "typescript":
        case "javascript":
          return new Worker(new URL("monaco-editor/language/typescript/ts.worker", import.meta.url), { type: "module" });
        default:
          return new Worker(new URL("monaco-editor/editor/editor.worker", import.meta.url), { type: "module" });
      }
    },
  };
}

loader.config({ monaco });

monaco.editor.defineTheme("berth-dark", {
  base: "vs-dark",
  inherit: true,
  rules: [],
  colors: { "editor.background": "#0f1115", "editor.lineHighlightBackground": "#161a21", "editorGutter.background": "#0f1115" },
});

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
        fontFamily: '"JetBrains Mono Variable", ui-monospace, monospace',
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
