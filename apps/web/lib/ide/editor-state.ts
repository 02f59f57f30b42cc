// The IDE's open tabs, the active one and each tab's cursor and scroll, kept in localStorage per session so a
// reload puts the developer back where they were. Read defensively: storage is anyone's to edit or corrupt.

import { storedObject } from "./stored-object";

export type TabView = { line: number; column: number; scrollTop: number; scrollLeft: number };
export type EditorState = { tabs: { path: string; view?: TabView }[]; active: string | null };

/** More tabs than this are not remembered (the oldest go first). */
export const EDITOR_STATE_MAX_TABS = 50;

export function editorStateKey(sessionId: string): string {
  return `berth.editor.${sessionId}`;
}

const isCount = (value: unknown, min: number): value is number =>
  typeof value === "number" && Number.isInteger(value) && value >= min;

function viewOf(value: unknown): TabView | undefined {
  if (typeof value !== "object" || value === null) return undefined;
  const v = value as Record<string, unknown>;
  if (!isCount(v.line, 1) || !isCount(v.column, 1) || !isCount(v.scrollTop, 0) || !isCount(v.scrollLeft, 0))
    return undefined;
  return { line: v.line, column: v.column, scrollTop: v.scrollTop, scrollLeft: v.scrollLeft };
}

/** What was stored, or null when nothing usable is; a bad entry is dropped, not the whole state. */
export function parseEditorState(raw: string | null): EditorState | null {
  const value = storedObject(raw);
  if (!value || !Array.isArray(value.tabs)) return null;
  const seen = new Set<string>();
  const tabs: EditorState["tabs"] = [];
  for (const entry of value.tabs as unknown[]) {
    const path = (entry as { path?: unknown } | null)?.path;
    if (typeof path !== "string" || path === "" || seen.has(path)) continue;
    seen.add(path);
    const view = viewOf((entry as { view?: unknown }).view);
    tabs.push(view ? { path, view } : { path });
  }
  const kept = tabs.slice(-EDITOR_STATE_MAX_TABS);
  const active = value.active;
  return {
    tabs: kept,
    active:
      typeof active === "string" && kept.some((t) => t.path === active)
        ? active
        : (kept[kept.length - 1]?.path ?? null),
  };
}

export function serializeEditorState(state: EditorState): string {
  const tabs = state.tabs.slice(-EDITOR_STATE_MAX_TABS);
  return JSON.stringify({
    tabs,
    active: state.active !== null && tabs.some((t) => t.path === state.active) ? state.active : null,
  });
}

/**
 * Of the tabs a restore is still waiting on, those that finished opening: `failed` ended in an error (the file
 * is gone, say) and are dropped quietly; the others opened and are no longer watched.
 */
export function settledRestores(
  tabs: readonly { path: string; kind: string }[],
  restoring: ReadonlySet<string>,
): { opened: string[]; failed: string[] } {
  const settled = tabs.filter((t) => restoring.has(t.path) && t.kind !== "loading");
  return { opened: settled.filter((t) => t.kind !== "error").map((t) => t.path), failed: settled.filter((t) => t.kind === "error").map((t) => t.path) };
}
