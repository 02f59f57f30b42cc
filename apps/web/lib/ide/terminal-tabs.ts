// The terminal panel's tabs as a pure model: one tab per PTY the runner lists for the session, and which
// one shows. The bytes each tab has shown are terminal-replay.ts's business.
import type { TerminalInfo } from "@berth/protocol";

export type TerminalTab = { terminalId: string; name: string; status: TerminalInfo["status"]; exitCode: number | null };

export type TerminalTabs = { tabs: TerminalTab[]; active: string | null };

export const NO_TERMINALS: TerminalTabs = { tabs: [], active: null };

export type TerminalTabsAction =
  /** terminal:list on a (re)connect: the runner's list is the truth; the active tab stays if still listed. */
  | { type: "listed"; terminals: readonly TerminalInfo[] }
  /** A terminal this page opened: it shows at once. */
  | { type: "opened"; terminal: TerminalInfo }
  | { type: "activate"; terminalId: string }
  | { type: "exited"; terminalId: string; exitCode: number | null }
  /** Closed: the last remaining tab shows if the closed one did. */
  | { type: "closed"; terminalId: string }
  | { type: "renamed"; terminalId: string; name: string };

export function terminalTabOf(info: TerminalInfo): TerminalTab {
  return { terminalId: info.terminalId, name: info.name, status: info.status, exitCode: info.exitCode };
}

function update(state: TerminalTabs, terminalId: string, change: (tab: TerminalTab) => TerminalTab): TerminalTabs {
  return { ...state, tabs: state.tabs.map((t) => (t.terminalId === terminalId ? change(t) : t)) };
}

export function reduceTerminalTabs(state: TerminalTabs, action: TerminalTabsAction): TerminalTabs {
  switch (action.type) {
    case "listed": {
      const tabs = action.terminals.map(terminalTabOf);
      const kept = tabs.some((t) => t.terminalId === state.active);
      return { tabs, active: kept ? state.active : (tabs[0]?.terminalId ?? null) };
    }
    case "opened":
      return { tabs: [...state.tabs, terminalTabOf(action.terminal)], active: action.terminal.terminalId };
    case "activate":
      return { ...state, active: action.terminalId };
    case "exited":
      return update(state, action.terminalId, (tab) => ({ ...tab, status: "exited", exitCode: action.exitCode }));
    case "closed": {
      const tabs = state.tabs.filter((t) => t.terminalId !== action.terminalId);
      return { tabs, active: state.active === action.terminalId ? (tabs[tabs.length - 1]?.terminalId ?? null) : state.active };
    }
    case "renamed":
      return update(state, action.terminalId, (tab) => ({ ...tab, name: action.name }));
  }
}

/** The views a page still holds for terminals the runner no longer lists (closed elsewhere, or reaped). */
export function unlistedTerminals(viewIds: Iterable<string>, terminals: readonly TerminalInfo[]): string[] {
  const listed = new Set(terminals.map((t) => t.terminalId));
  return [...viewIds].filter((terminalId) => !listed.has(terminalId));
}

/** The name a rename sends, or null when there is nothing to send (blank, or the name it has). */
export function renameTarget(state: TerminalTabs, terminalId: string, name: string): string | null {
  const trimmed = name.trim();
  if (!trimmed || state.tabs.find((t) => t.terminalId === terminalId)?.name === trimmed) return null;
  return trimmed;
}

/** The line a tab writes when its shell ends (its own, not part of the transcript). */
export function exitNote(exitCode: number | null): string {
  return `[shell exited${exitCode === null ? "" : ` with code ${exitCode}`}; close the tab or open a new one]`;
}
