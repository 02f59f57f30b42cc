"use client";
import { useEffect, useRef, useState } from "react";
import type * as Monaco from "monaco-editor";
import { ErrorState } from "@/components/ui/states";
import { loadEditorModule, type MonacoApi } from "./load-monaco";

const SLOT_STYLE = { width: "100%", height: "100%" };

export type IdeEditorInstance = Monaco.editor.IStandaloneCodeEditor;

export type IdeEditorProps = {
  /** One model per path: switching tabs keeps each file's undo stack, cursor and scroll. */
  path: string;
  /** The text a path's model starts with when it is first shown (later changes go into the model). */
  value: string;
  language: string;
  readOnly: boolean;
  onChange: (value: string) => void;
  /** `asked`: a file the tree was clicked for before React had hydrated it (monaco/entry.ts), to open now. */
  onMount: (editor: IdeEditorInstance, monaco: MonacoApi, asked: string | null) => void;
};

/**
 * The IDE's one editor. The server HTML carries an empty slot (never hydrated: React leaves the
 * children of a `dangerouslySetInnerHTML` element alone) and an early script (lib/preloads.tsx) that
 * creates the editor in it as soon as Monaco's bundle has loaded, before or while React hydrates, and
 * keeps a file the tree is clicked for meanwhile; this component adopts that instance and that file
 * (monaco/entry.ts `adoptIdeEditor`), or creates the editor when the page came without the script (a
 * client-side navigation). Then it shows one model per path, as
 * @monaco-editor/react did: a path's model is created with `value` on first show, and each path's view
 * state (cursor, scroll, folds) is kept across switches.
 */
export function IdeEditor({ path, value, language, readOnly, onChange, onMount }: IdeEditorProps) {
  const slot = useRef<HTMLDivElement>(null);
  const [ready, setReady] = useState<{ editor: IdeEditorInstance; monaco: MonacoApi; asked: string | null } | null>(null);
  const [failed, setFailed] = useState<string | null>(null);
  const latest = useRef({ path, value, language, onChange, onMount });
  latest.current = { path, value, language, onChange, onMount };
  const viewStates = useRef(new Map<string, Monaco.editor.ICodeEditorViewState | null>());
  const shown = useRef<string | null>(null);

  useEffect(() => {
    let live = true;
    let editor: IdeEditorInstance | null = null;
    loadEditorModule().then(
      (module) => {
        if (!live || !slot.current) return;
        const adopted = module.adoptIdeEditor(slot.current);
        editor = adopted.editor;
        // setValue on a model (a re-read, a reload) is a change too: the tab's draft follows the model.
        editor.onDidChangeModelContent(() => latest.current.onChange(editor!.getValue()));
        setReady({ editor, monaco: module.default, asked: adopted.asked });
      },
      (error: unknown) => live && setFailed(`Could not load the editor: ${(error as Error).message}`),
    );
    return () => {
      live = false;
      // As @monaco-editor/react did on unmount: the shown model goes with the editor.
      editor?.getModel()?.dispose();
      editor?.dispose();
    };
  }, []);

  // Show `path`'s model (created with `value` the first time), keeping the view state of the one it replaces.
  useEffect(() => {
    if (!ready) return;
    const { editor, monaco } = ready;
    const uri = monaco.Uri.parse(path);
    const { value: text, language: lang } = latest.current;
    const model = monaco.editor.getModel(uri) ?? monaco.editor.createModel(text, lang, uri);
    if (model === editor.getModel()) return;
    if (shown.current !== null) viewStates.current.set(shown.current, editor.saveViewState());
    editor.setModel(model);
    shown.current = path;
    const view = viewStates.current.get(path);
    if (view) editor.restoreViewState(view);
  }, [ready, path]);

  useEffect(() => {
    const model = ready?.editor.getModel();
    if (ready && model && model.getLanguageId() !== language) ready.monaco.editor.setModelLanguage(model, language);
  }, [ready, path, language]);

  useEffect(() => {
    ready?.editor.updateOptions({ readOnly });
  }, [ready, readOnly]);

  // Mounted once it shows the right model: the attribute is what tests and bench:web wait for (the early
  // script has set it already when it created the editor).
  useEffect(() => {
    if (!ready) return;
    const node = ready.editor.getContainerDomNode();
    node.setAttribute("data-monaco-ready", "true");
    // bench:web times React's adoption apart from the early editor's readiness.
    node.setAttribute("data-editor-adopted", "true");
    latest.current.onMount(ready.editor, ready.monaco, ready.asked);
  }, [ready]);

  if (failed) return <ErrorState message={failed} onRetry={() => window.location.reload()} />;
  return <div ref={slot} style={SLOT_STYLE} data-editor-slot="" dangerouslySetInnerHTML={{ __html: "" }} suppressHydrationWarning />;
}
