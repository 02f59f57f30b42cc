// The IDE's open files as a pure model: which tabs are open, which one shows, what each holds. The editor
// (Monaco) keeps the text being typed; a tab keeps the version on disk (`saved`) and the draft beside it.
import type { ToolResult } from "@berth/protocol";

/** Files bigger than this open read-only (the editor would be slow and write_file refuses over 8 MiB). */
export const EDITABLE_MAX_CHARS = 2_000_000;

export type TabKind = "loading" | "text" | "binary" | "too_large" | "error";

/** sha256: of the version loaded or last saved, sent with the next save so a change on disk since is a conflict. */
export type EditorTab = {
  path: string;
  kind: TabKind;
  saved: string;
  draft: string;
  truncated?: boolean;
  message?: string;
  sha256?: string | null;
};

export type EditorTabs = { tabs: EditorTab[]; activePath: string | null };

export const NO_TABS: EditorTabs = { tabs: [], activePath: null };

/** What a read_file answered, as a tab needs it. */
export type FileRead =
  | { ok: true; content: string; truncated: boolean; sha256: string | null }
  | { ok: false; kind: Exclude<TabKind, "loading" | "text">; message: string };

export function fileReadOf(result: ToolResult): FileRead {
  if (!result.ok) {
    const code = result.error?.code ?? "";
    const kind = code === "binary_file" || code === "invalid_utf8" ? "binary" : code === "too_large" ? "too_large" : "error";
    return { ok: false, kind, message: result.error?.message ?? result.output };
  }
  const details = result.details as { content?: string; truncated?: boolean; sha256?: string } | undefined;
  return { ok: true, content: details?.content ?? "", truncated: !!details?.truncated, sha256: details?.sha256 ?? null };
}

export type EditorTabsAction =
  /** Shows `path`, adding a loading tab when it is not open yet. */
  | { type: "open"; path: string }
  | { type: "activate"; path: string }
  | { type: "read"; path: string; read: FileRead }
  /** The read could not even be asked (the request failed). */
  | { type: "failed"; path: string; message: string }
  /** Closed by the user: the last remaining tab shows. */
  | { type: "close"; path: string }
  /** A restored tab whose file no longer opens: the first other tab shows. */
  | { type: "drop"; path: string }
  | { type: "draft"; path: string; text: string }
  /** Written to disk: `text` is now the saved version, whatever was typed since stays the draft. */
  | { type: "saved"; path: string; text: string; sha256: string | null }
  /** Both versions replaced, as after taking the disk's version. */
  | { type: "reset"; path: string; text: string; sha256: string | null };

export function isDirty(tab: EditorTab): boolean {
  return tab.kind === "text" && tab.draft !== tab.saved;
}

export function dirtyPaths(tabs: readonly EditorTab[]): Set<string> {
  return new Set(tabs.filter(isDirty).map((t) => t.path));
}

export function findTab(state: EditorTabs, path: string | null): EditorTab | null {
  return state.tabs.find((t) => t.path === path) ?? null;
}

/** The tab the user may save or run: a text tab, not truncated. */
export function editableTab(state: EditorTabs, path: string | null): EditorTab | null {
  const tab = findTab(state, path);
  return tab && tab.kind === "text" && !tab.truncated ? tab : null;
}

function update(state: EditorTabs, path: string, change: (tab: EditorTab) => EditorTab): EditorTabs {
  return { ...state, tabs: state.tabs.map((t) => (t.path === path ? change(t) : t)) };
}

export function reduceEditorTabs(state: EditorTabs, action: EditorTabsAction): EditorTabs {
  switch (action.type) {
    case "open":
      if (state.tabs.some((t) => t.path === action.path)) return { ...state, activePath: action.path };
      return { tabs: [...state.tabs, { path: action.path, kind: "loading", saved: "", draft: "" }], activePath: action.path };
    case "activate":
      return { ...state, activePath: action.path };
    case "read": {
      const { read } = action;
      return update(state, action.path, (tab) =>
        read.ok
          ? { ...tab, kind: "text", saved: read.content, draft: read.content, truncated: read.truncated, message: undefined, sha256: read.sha256 }
          : { ...tab, kind: read.kind, message: read.message },
      );
    }
    case "failed":
      return update(state, action.path, (tab) => ({ ...tab, kind: "error", message: action.message }));
    case "close": {
      const tabs = state.tabs.filter((t) => t.path !== action.path);
      return { tabs, activePath: state.activePath === action.path ? (tabs[tabs.length - 1]?.path ?? null) : state.activePath };
    }
    case "drop": {
      const tabs = state.tabs.filter((t) => t.path !== action.path);
      return { tabs, activePath: state.activePath === action.path ? (tabs[0]?.path ?? null) : state.activePath };
    }
    case "draft":
      return update(state, action.path, (tab) => ({ ...tab, draft: action.text }));
    case "saved":
      return update(state, action.path, (tab) => ({ ...tab, saved: action.text, sha256: action.sha256 }));
    case "reset":
      return update(state, action.path, (tab) => ({ ...tab, saved: action.text, draft: action.text, sha256: action.sha256 }));
  }
}

/**
 * The open files to read again after `file:changed` named `changed`: "." means anything may have changed
 * (a command ran), so every open file.
 */
export function pathsToReread(changed: readonly string[], open: readonly string[]): string[] {
  return changed.includes(".") ? [...open] : changed.filter((path) => open.includes(path));
}
