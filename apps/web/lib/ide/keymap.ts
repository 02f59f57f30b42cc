// The IDE's keyboard shortcuts in one table: what a key press means, and the label the command palette
// shows for it. Ctrl and Cmd are the same modifier, except for the terminal's Ctrl+` (Cmd+` switches
// windows on a Mac).

export type KeyPress = { key: string; code: string; ctrlKey: boolean; metaKey: boolean; shiftKey: boolean };

export type IdeShortcut = "save" | "run" | "terminal" | "quick-open" | "commands" | "search";

type Binding = { label: string; matches: (press: KeyPress, mod: boolean, key: string) => boolean };

/** The key sets are disjoint, so the order does not matter. */
const BINDINGS: Readonly<Record<IdeShortcut, Binding>> = {
  save: { label: "Ctrl+S", matches: (_, mod, key) => mod && key === "s" },
  run: { label: "Ctrl+Enter", matches: (press, mod) => mod && press.key === "Enter" },
  terminal: { label: "Ctrl+`", matches: (press) => press.ctrlKey && (press.key === "`" || press.code === "Backquote") },
  "quick-open": { label: "Ctrl+P", matches: (press, mod, key) => mod && !press.shiftKey && key === "p" },
  commands: { label: "Ctrl+Shift+P", matches: (press, mod, key) => (mod && press.shiftKey && key === "p") || press.key === "F1" },
  search: { label: "Ctrl+Shift+F", matches: (press, mod, key) => mod && press.shiftKey && key === "f" },
};
const SHORTCUTS = Object.keys(BINDINGS) as IdeShortcut[];

/** The shortcut a key press means, or null. */
export function shortcutFor(press: KeyPress): IdeShortcut | null {
  const mod = press.ctrlKey || press.metaKey;
  const key = press.key.toLowerCase();
  return SHORTCUTS.find((shortcut) => BINDINGS[shortcut].matches(press, mod, key)) ?? null;
}

/** How the palette writes a shortcut's keys. */
export function shortcutLabel(shortcut: IdeShortcut): string {
  return BINDINGS[shortcut].label;
}
