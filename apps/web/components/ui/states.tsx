import type { ReactNode } from "react";
import type { SocketState } from "@/lib/socket";

export function Spinner({ label = "Loading…" }: { label?: string }) {
  return (
    <div className="state loading" role="status" data-testid="loading">
      <span className="spinner" aria-hidden /> {label}
    </div>
  );
}

export function ErrorState({ message, onRetry }: { message: string; onRetry?: () => void }) {
  return (
    <div className="state error" role="alert" data-testid="error-state">
      <span>⚠ {message}</span>
      {onRetry ? (
        <button className="btn small" onClick={onRetry}>
          Retry
        </button>
      ) : null}
    </div>
  );
}

export function EmptyState({ title, children, testId }: { title: string; children?: ReactNode; testId?: string }) {
  return (
    <div className="empty" data-testid={testId ?? "empty-state"}>
      <strong>{title}</strong>
      {children ? <div className="muted">{children}</div> : null}
    </div>
  );
}

const TONE: Record<string, string> = {
  allow: "ok", ask: "warn", deny: "bad", accepted: "ok", held: "warn",
  ready: "ok", running: "info", succeeded: "ok", approved: "ok", finished: "ok", starting: "info", pending: "warn",
  failed: "bad", denied: "bad", "timed-out": "bad", "oom-killed": "bad", "spawn-failed": "bad", aborted: "bad", interrupted: "warn",
  "cleanup-incomplete": "warn", expired: "muted", consumed: "ok", stopped: "muted", deleted: "muted", exited: "muted", EXITED: "muted", RUNNING: "info", STOPPED: "muted",
};

export function StatusBadge({ value, testId }: { value: string | null | undefined; testId?: string }) {
  const text = value ?? "—";
  return (
    <span className={`badge ${TONE[text] ?? "muted"}`} data-testid={testId} data-value={text}>
      {text}
    </span>
  );
}

const SOCKET_TITLES: Record<SocketState, string> = {
  connecting: "connecting for live updates",
  live: "live updates connected",
  reconnecting: "live updates lost: reconnecting",
};

/** The live-update connection, as a small badge: "connecting…" on page load is not an outage. */
export function SocketStatus({ state }: { state: SocketState }) {
  return (
    <span className={`conn ${state === "live" ? "on" : state === "connecting" ? "pending" : "off"}`} title={SOCKET_TITLES[state]} data-testid="socket-status">
      {state === "connecting" ? "connecting…" : state}
    </span>
  );
}
