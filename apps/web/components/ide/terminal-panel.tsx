"use client";
import "@xterm/xterm/css/xterm.css";
import { forwardRef, useImperativeHandle, useState } from "react";
import type { Parked } from "@/lib/api";
import { TabStrip } from "./tab-strip";
import { useTerminals } from "./use-terminals";

export type TerminalHandle = { focus: () => void };

type TerminalPanelProps = {
  sessionId: string;
  /** Unused: a terminal is the person acting as themselves and never waits for an approval. */
  onParked?: (parked: Parked | null) => void;
  visible: boolean;
  /** False until the page asks for the terminal (use-load-schedule.ts starts it once the editor is up). */
  start: boolean;
};

/**
 * The IDE's terminals: tabs of real shells, each xterm.js on a PTY inside the session's container
 * (docs/api.md "Terminals"). A tab survives a reload or a network drop (use-terminals.ts reattaches it
 * from the byte offset it has shown), a double click renames it, × ends its shell.
 */
export const TerminalPanel = forwardRef<TerminalHandle, TerminalPanelProps>(function TerminalPanel({ sessionId, visible, start }, ref) {
  const terminals = useTerminals({ sessionId, visible, start });
  const [renaming, setRenaming] = useState<string | null>(null);
  const { focus } = terminals;
  // focus reads refs only, so the handle made on mount stays right.
  useImperativeHandle(ref, () => ({ focus }), []);
  const rename = (terminalId: string, name: string) => {
    setRenaming(null);
    void terminals.rename(terminalId, name);
  };

  const { tabs, active } = terminals;
  return (
    <div className="terminal-panel">
      <TabStrip
        className="terminal-tabs"
        testId="terminal-tabs"
        tabTestId="terminal-tab"
        activeId={active}
        onSelect={terminals.select}
        onClose={(terminalId) => void terminals.close(terminalId)}
        tabs={tabs.map((tab) => ({
          id: tab.terminalId,
          className: `terminal-tab${tab.status === "exited" ? " exited" : ""}`,
          data: { "data-terminal-id": tab.terminalId },
          close: { className: "terminal-tab-close", title: "Close (ends the shell)", label: `Close ${tab.name}`, testId: "terminal-tab-close" },
          label:
            renaming === tab.terminalId ? (
              <input
                className="terminal-tab-name"
                data-testid="terminal-tab-rename"
                defaultValue={tab.name}
                autoFocus
                maxLength={60}
                onBlur={(e) => rename(tab.terminalId, e.currentTarget.value)}
                onKeyDown={(e) => {
                  if (e.key === "Enter") rename(tab.terminalId, e.currentTarget.value);
                  if (e.key === "Escape") setRenaming(null);
                }}
              />
            ) : (
              <span className="terminal-tab-label" title="Double-click to rename" onDoubleClick={() => setRenaming(tab.terminalId)}>
                {tab.name}
                {tab.status === "exited" ? <span className="muted"> (exited)</span> : null}
              </span>
            ),
        }))}
      >
        <button className="terminal-new" title="New terminal" data-testid="terminal-new" disabled={!terminals.ready || terminals.opening} onClick={terminals.open}>
          +
        </button>
        {terminals.error ? (
          <span className="terminal-error danger tiny" role="alert" data-testid="terminal-error">
            {terminals.error}
          </span>
        ) : null}
      </TabStrip>
      <div className="terminal-host" data-testid="terminal" onClick={terminals.focusActive}>
        {terminals.ready ? null : <div className="terminal-starting muted tiny">Starting terminal…</div>}
        {/* xterm's views live here, outside React's children (TerminalView owns them). */}
        <div className="terminal-views" ref={terminals.hostRef} />
      </div>
    </div>
  );
});
