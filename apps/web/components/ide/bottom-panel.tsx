"use client";
import { Suspense, type RefObject } from "react";
import { Link } from "@/components/ui/link";
import { OutputView } from "@/components/runs/run-output";
import { ResultImages } from "@/components/runs/result-images";
import { StatusBadge } from "@/components/ui/states";
import type { Parked } from "@/lib/api";
import { formatDuration, shortId } from "@/lib/format";
import { PortsPanel } from "./ports-panel";
import { SessionRuns } from "./session-runs";
import { TerminalPanel, type TerminalHandle } from "./terminal-panel";
import type { RunApi } from "./use-run";

export type BottomTab = "terminal" | "output" | "runs" | "ports";

type BottomPanelProps = {
  sessionId: string;
  tab: BottomTab;
  onTab: (tab: BottomTab) => void;
  /** The Terminal tab also starts the terminal if it has not started yet. */
  onShowTerminal: () => void;
  run: RunApi;
  terminalRef: RefObject<TerminalHandle | null>;
  terminalDue: boolean;
  onParked: (parked: Parked | null) => void;
};

/**
 * The panel under the editor: terminals, the output of the run shown, the session's runs and the ports
 * listening in the container. Every pane stays mounted while hidden, so a terminal keeps its screen.
 */
function BottomPanelContent({ sessionId, tab, onTab, onShowTerminal, run, terminalRef, terminalDue, onParked }: BottomPanelProps) {
  const { stream, runId, runPending, runs } = run;
  const pane = (name: BottomTab, shown: string) => (tab === name ? shown : "hidden");
  return (
    <section className="bottom-panel">
      <div className="bottom-tabs" role="tablist">
        <button className={tab === "terminal" ? "active" : ""} onClick={onShowTerminal} data-testid="tab-terminal">
          Terminal
        </button>
        <button className={tab === "output" ? "active" : ""} onClick={() => onTab("output")} data-testid="tab-output">
          Output
          {stream.status ? <StatusBadge value={stream.outcome ?? stream.status} /> : null}
        </button>
        <button className={tab === "runs" ? "active" : ""} onClick={() => onTab("runs")} data-testid="tab-runs">
          Runs {runs ? <span className="muted">({runs.length})</span> : null}
        </button>
        <button className={tab === "ports" ? "active" : ""} onClick={() => onTab("ports")} data-testid="tab-ports">
          Ports
        </button>
        <div className="spacer" />
        <span className="muted tiny hint">
          <kbd>Ctrl+`</kbd> terminal · <kbd>Ctrl/Cmd+Enter</kbd> run
        </span>
      </div>
      <div className="bottom-body">
        <div className={pane("terminal", "fill")}>
          <TerminalPanel ref={terminalRef} sessionId={sessionId} onParked={onParked} visible={tab === "terminal"} start={terminalDue} />
        </div>
        <div className={pane("output", "fill output-pane")} data-testid="output-pane">
          {runId ? (
            <div className="run-head">
              <span className="muted">Run</span>
              <Link href={`/runs/${runId}`} className="mono" data-testid="run-link">
                {shortId(runId)}
              </Link>
              <StatusBadge value={stream.status ?? (runPending ? "running" : null)} testId="run-status" />
              {stream.outcome ? <StatusBadge value={stream.outcome} testId="run-outcome" /> : null}
              {stream.exitCode !== null ? <span className="muted">exit {stream.exitCode}</span> : null}
              {stream.run?.durationMs ? <span className="muted">{formatDuration(stream.run.durationMs)}</span> : null}
            </div>
          ) : null}
          <OutputView chunks={stream.chunks} testId="run-output" empty={runId ? (runPending ? "Waiting for output…" : "") : runPending ? "Starting…" : "Run a script with ▶ Run (Ctrl/Cmd+Enter): its output streams here."} />
          <ResultImages details={(stream.run as { details?: unknown } | null)?.details} />
        </div>
        <div className={pane("runs", "fill scroll")}>
          <SessionRuns
            runs={runs}
            currentRunId={runId}
            onShow={(id) => {
              run.adoptRun(id);
              onTab("output");
            }}
          />
        </div>
        <div className={pane("ports", "fill scroll")}>
          <PortsPanel sessionId={sessionId} visible={tab === "ports"} />
        </div>
      </div>
    </section>
  );
}

/**
 * A Suspense boundary of its own: React hydrates it after the IDE's shell (each server-rendered boundary
 * is hydrated on its own), so the editor is adopted (components/editor/ide-editor.tsx) as soon as the
 * shell is, not after the panes and the file tree too. An update that reaches it first hydrates it then.
 */
export function BottomPanel(props: BottomPanelProps) {
  return (
    <Suspense>
      <BottomPanelContent {...props} />
    </Suspense>
  );
}
