"use client";
import { Link } from "@/components/ui/link";
import { AUTONOMY_HELP, AUTONOMY_OPTIONS, type Autonomy, type Session } from "@/lib/api";
import { shortId } from "@/lib/format";
import type { SessionRights } from "@/lib/ide/session-rights";
import type { SocketState } from "@/lib/socket";
import { SocketStatus, StatusBadge } from "@/components/ui/states";
import type { Notice } from "./use-notice";

export type RunControls = {
  canSave: boolean;
  saving: boolean;
  onSave: () => void;
  /** What ▶ Run runs the active file with; null when it is not a script. */
  interpreter: string | null;
  runPending: boolean;
  /** The session is stopped, failed or deleted: nothing runs. */
  stopped: boolean;
  onRun: () => void;
  running: boolean;
  stopping: boolean;
  onStop: () => void;
  /** The run waits for an approval: Cancel withdraws it. */
  waitingForApproval: boolean;
  onCancelParked: () => void;
};

type IdeToolbarProps = {
  sessionId: string;
  session: Session | undefined;
  socketState: SocketState;
  rights: SessionRights;
  onChangeAutonomy: (autonomy: Autonomy) => void;
  notice: Notice | null;
  controls: RunControls;
};

/** The IDE's top bar: the session (status, autonomy, network, connection), the last notice, Save and Run. */
export function IdeToolbar({ sessionId, session, socketState, rights, onChangeAutonomy, notice, controls }: IdeToolbarProps) {
  return (
    <div className="ide-toolbar">
      <Link href="/" className="muted">
        Sessions
      </Link>
      <span className="muted">/</span>
      <strong data-testid="session-title">{session?.name ?? shortId(sessionId)}</strong>
      {session ? (
        <>
          <StatusBadge value={session.status} testId="session-status" />
          {session.terminationCause ? <span className="muted tiny">({session.terminationCause.replaceAll("_", " ")})</span> : null}
          <AutonomyControl session={session} rights={rights} onChange={onChangeAutonomy} />
          <span className="badge muted" title="network">
            net: {session.network}
          </span>
        </>
      ) : null}
      <SocketStatus state={socketState} />
      <div className="spacer" />
      {notice ? (
        <span className={`notice ${notice.tone}`} data-testid="notice">
          {notice.text}
        </span>
      ) : null}
      <ToolbarButtons controls={controls} />
    </div>
  );
}

/** A picker for whoever may change the session's autonomy, a badge for everyone else. */
function AutonomyControl({ session, rights, onChange }: { session: Session; rights: SessionRights; onChange: (autonomy: Autonomy) => void }) {
  if (!rights.canChangeAutonomy) {
    return (
      <span className="badge muted" title={`autonomy: ${AUTONOMY_HELP[session.autonomy]}`} data-testid="session-autonomy">
        {session.autonomy}
      </span>
    );
  }
  return (
    <label className="autonomy-pick" title={`${AUTONOMY_HELP[session.autonomy]}${session.autonomyChangedBy ? ` (set by ${session.autonomyChangedBy})` : ""}`}>
      <span className="muted tiny">autonomy</span>
      <select value={session.autonomy} onChange={(event) => onChange(event.target.value as Autonomy)} data-testid="session-autonomy-select">
        {AUTONOMY_OPTIONS.map((level) => (
          <option key={level} value={level} disabled={!rights.autonomyAllowed(level)} title={AUTONOMY_HELP[level]}>
            {level}
            {rights.autonomyAllowed(level) ? "" : " (operator)"}
          </option>
        ))}
      </select>
    </label>
  );
}

/** Save, then one of ■ Stop (a run is running), Cancel (it waits for an approval) or ▶ Run. */
function ToolbarButtons({ controls: c }: { controls: RunControls }) {
  return (
    <>
      <button className="btn small" onClick={c.onSave} disabled={!c.canSave || c.saving} data-testid="save" title="Save (Ctrl/Cmd+S)">
        {c.saving ? "Saving…" : "Save"}
      </button>
      {c.running ? (
        <button className="btn danger small" onClick={c.onStop} disabled={c.stopping} data-testid="stop" title="Stop: kill the run's processes (outcome aborted)">
          {c.stopping ? "Stopping…" : "■ Stop"}
        </button>
      ) : c.waitingForApproval ? (
        <button className="btn small" onClick={c.onCancelParked} data-testid="cancel-parked" title="Withdraw this call: it will not run">
          Cancel
        </button>
      ) : (
        <button
          className="btn primary small"
          onClick={c.onRun}
          disabled={!c.interpreter || c.runPending || c.stopped}
          data-testid="run"
          title={c.interpreter ? `Run with ${c.interpreter} (Ctrl/Cmd+Enter)` : "Open a .py, .js, .sh, .rb, .pl, .r, .jl or .m file to run it"}
        >
          {c.runPending ? "Starting…" : `▶ Run${c.interpreter ? ` (${c.interpreter})` : ""}`}
        </button>
      )}
    </>
  );
}
