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

export default monaco;
