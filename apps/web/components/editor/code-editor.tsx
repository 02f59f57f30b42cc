"use client";
import dynamic from "next/dynamic";

/** Monaco only in the browser (it touches `window` at import). */
export const CodeEditor = dynamic(() => import("./monaco-editor"), {
  ssr: false,
  loading: () => <div className="state loading">Loading editor…</div>,
});
