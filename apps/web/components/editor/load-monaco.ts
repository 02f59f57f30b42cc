"use client";
import { loader } from "@monaco-editor/react";
import type * as Monaco from "monaco-editor";
import { webEnv } from "../../lib/env";

export type MonacoApi = typeof Monaco;

/** Set by next.config.ts: the folder monaco/build.mjs wrote the editor bundle to. Never a CDN. */
const MONACO_URL = webEnv().BERTH_MONACO_URL;

let loading: Promise<MonacoApi> | null = null;

function linkStylesheet(href: string): Promise<void> {
  const existing = document.querySelector<HTMLLinkElement>(`link[data-monaco-css]`);
  if (existing) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const link = document.createElement("link");
    link.rel = "stylesheet";
    link.href = href;
    link.dataset.monacoCss = "";
    link.onload = () => resolve();
    link.onerror = () => {
      link.remove();
      reject(new Error(`could not load ${href}`));
    };
    document.head.appendChild(link);
  });
}

/**
 * Loads Monaco from our own bundle (script and stylesheet in parallel), defines the Berth theme and
 * hands the instance to @monaco-editor/react, whose loader would otherwise fetch Monaco from a CDN.
 * One load per page; a failed load can be retried.
 */
export function loadMonaco(): Promise<MonacoApi> {
  loading ??= (async () => {
    const [module] = await Promise.all([
      import(/* webpackIgnore: true */ /* turbopackIgnore: true */ `${MONACO_URL}/editor.js`) as Promise<{ default: MonacoApi }>,
      linkStylesheet(`${MONACO_URL}/editor.css`),
    ]);
    const monaco = module.default;
    monaco.editor.defineTheme("berth-dark", {
      base: "vs-dark",
      inherit: true,
      rules: [],
      colors: { "editor.background": "#0f1115", "editor.lineHighlightBackground": "#161a21", "editorGutter.background": "#0f1115" },
    });
    loader.config({ monaco });
    return monaco;
  })().catch((error: unknown) => {
    loading = null;
    throw error;
  });
  return loading;
}
