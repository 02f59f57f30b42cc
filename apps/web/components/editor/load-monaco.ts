"use client";
import { loader } from "@monaco-editor/react";
import type * as Monaco from "monaco-editor";
import { webEnv } from "../../lib/env";

export type MonacoApi = typeof Monaco;

/** What monaco/entry.ts exports (editor.js is built by esbuild, not seen by Next, so it is typed here). */
export type EditorModule = {
  default: MonacoApi;
  editorStylesheet(): Promise<void>;
  adoptIdeEditor(host: HTMLElement): { editor: Monaco.editor.IStandaloneCodeEditor; asked: string | null };
  NO_FILE_MODEL: string;
  EDITOR_OPTIONS: Monaco.editor.IStandaloneEditorConstructionOptions;
};

/** Set by next.config.ts: the folder monaco/build.mjs wrote the editor bundle to. Never a CDN. */
const MONACO_URL = webEnv().BERTH_MONACO_URL;

let loading: Promise<EditorModule> | null = null;

/**
 * Loads Monaco from our own bundle and its stylesheet (both preloaded with the page), and hands the
 * instance to @monaco-editor/react, whose loader would otherwise fetch Monaco from a CDN. The bundle is
 * the same module the IDE page's early script imported (one per URL), so this does not evaluate it
 * again. One load per page; a failed load can be retried.
 */
export function loadEditorModule(): Promise<EditorModule> {
  loading ??= (async () => {
    const module = (await import(/* webpackIgnore: true */ /* turbopackIgnore: true */ `${MONACO_URL}/editor.js`)) as EditorModule;
    await module.editorStylesheet();
    loader.config({ monaco: module.default });
    return module;
  })().catch((error: unknown) => {
    loading = null;
    throw error;
  });
  return loading;
}

/** Monaco's API (see loadEditorModule). */
export function loadMonaco(): Promise<MonacoApi> {
  return loadEditorModule().then((module) => module.default);
}
