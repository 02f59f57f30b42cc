// The browser entry of Monaco, bundled by build.mjs with esbuild rather than by Next: esbuild hoists
// Monaco's ~1,500 modules into one scope, where Next wraps each in a factory that V8 compiles lazily on
// the main thread when the editor first loads. That cost 0.3-0.5 s of the first file open (README:
// "Editor bundle"). Served from /_next/static/monaco/<build id>/ (see build-id.mjs).
import * as monaco from "monaco-editor/editor/editor.api";
// The editor's contributions and languages (build.mjs: editor.main.js minus what Berth leaves out).
import "berth:monaco-features";

/** Worker file names (hashed), filled in by build.mjs. */
declare const __BERTH_MONACO_WORKERS__: Record<"editor" | "json" | "css" | "html" | "ts", string>;

const WORKER_BY_LABEL: Record<string, keyof typeof __BERTH_MONACO_WORKERS__> = {
  json: "json",
  css: "css",
  scss: "css",
  less: "css",
  html: "html",
  handlebars: "html",
  razor: "html",
  typescript: "ts",
  javascript: "ts",
};

self.MonacoEnvironment = {
  getWorker(_workerId: string, label: string) {
    const file = __BERTH_MONACO_WORKERS__[WORKER_BY_LABEL[label] ?? "editor"];
    return new Worker(new URL(file, import.meta.url), { type: "module", name: label });
  },
};

monaco.editor.defineTheme("berth-dark", {
  base: "vs-dark",
  inherit: true,
  rules: [],
  colors: { "editor.background": "#0f1115", "editor.lineHighlightBackground": "#161a21", "editorGutter.background": "#0f1115" },
});

let stylesheet: Promise<void> | null = null;

/**
 * Links editor.css once per page, or takes the link the IDE page's early script made (lib/preloads.tsx,
 * `data-editor-css`): that one has loaded by the time Monaco has evaluated, so the early editor is
 * created in the same task as the evaluation, not after a load event that hydration's tasks would run
 * ahead of. A failed link can be retried.
 */
export function editorStylesheet(): Promise<void> {
  stylesheet ??= new Promise<void>((resolve, reject) => {
    const carried = document.querySelector<HTMLLinkElement>("link[data-editor-css]");
    if (carried?.dataset.editorCss === "loaded") return resolve();
    const link = carried?.dataset.editorCss === "loading" ? carried : document.head.appendChild(Object.assign(document.createElement("link"), { rel: "stylesheet", href: new URL("./editor.css", import.meta.url).href }));
    if (link !== carried) carried?.remove();
    link.addEventListener("load", () => resolve(), { once: true });
    link.addEventListener(
      "error",
      () => {
        link.remove();
        stylesheet = null;
        reject(new Error(`could not load ${link.href}`));
      },
      { once: true },
    );
  });
  return stylesheet;
}

/** The model the IDE's editor holds while no text file is active (it is hidden then). */
export const NO_FILE_MODEL = "inmemory://berth/no-file";

/** Berth's editors' options (the IDE's, the skill editor's); `readOnly` is each page's to set. */
export const EDITOR_OPTIONS: monaco.editor.IStandaloneEditorConstructionOptions = {
  theme: "berth-dark",
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
};

let ide: { host: HTMLElement; editor: monaco.editor.IStandaloneCodeEditor } | null = null;

/**
 * The IDE's one editor, in `host`: the one already there, or a new one holding the empty, read-only
 * no-file model. The same module serves the page's early script (startIdeEditor) and the React editor
 * (adoptIdeEditor), whichever comes first, so they share the instance. Read-only until the IDE shows a
 * file in it, so nothing typed early is lost.
 */
function ideEditorIn(host: HTMLElement): monaco.editor.IStandaloneCodeEditor {
  if (ide?.host === host) return ide.editor;
  ide?.editor.dispose();
  const uri = monaco.Uri.parse(NO_FILE_MODEL);
  const model = monaco.editor.getModel(uri) ?? monaco.editor.createModel("", "plaintext", uri);
  const editor = monaco.editor.create(host, { ...EDITOR_OPTIONS, model, readOnly: true });
  const created = { host, editor };
  ide = created;
  editor.onDidDispose(() => {
    if (ide === created) ide = null;
  });
  return editor;
}

let adopted = false;

/**
 * Run by the IDE page's early script (lib/preloads.tsx) as soon as this bundle has loaded, before React
 * hydrates: the editor is created in the server-rendered slot and is ready at once, since a file the tree
 * is clicked for before React takes over is kept for it (the early script keeps the last one on the slot,
 * `data-asked-path`, from the moment the page is parsed). Settles once the editor is created or will not
 * be: the script then lets the page's own scripts run (defer-page-scripts.mjs).
 */
export function startIdeEditor(): Promise<void> {
  const slot = document.querySelector<HTMLElement>("[data-editor-slot]");
  if (!slot || adopted) return Promise.resolve();
  // A failed stylesheet is reported by the React side, which loads it again.
  return editorStylesheet().then(
    () => {
      if (!slot.isConnected || adopted) return;
      const editor = ideEditorIn(slot);
      // What tests and bench:web wait for: the editor exists and a file asked for from now on opens in it.
      editor.getContainerDomNode().setAttribute("data-monaco-ready", "true");
    },
    () => undefined,
  );
}

/**
 * The React editor (components/editor/ide-editor.tsx) takes the IDE's editor in `host` (the early one,
 * or a new one after a client-side navigation) and the file the tree was clicked for before React had
 * hydrated it, to open. From then on React opens what the tree is clicked for: the early script stops
 * keeping clicks (`data-tree-clicks="react"`). Opening an open file only activates its tab, so a click
 * React sees as well still shows the file asked for last.
 */
export function adoptIdeEditor(host: HTMLElement): { editor: monaco.editor.IStandaloneCodeEditor; asked: string | null } {
  const editor = ideEditorIn(host);
  adopted = true;
  host.setAttribute("data-tree-clicks", "react");
  const asked = host.getAttribute("data-asked-path");
  host.removeAttribute("data-asked-path");
  return { editor, asked };
}

export default monaco;
