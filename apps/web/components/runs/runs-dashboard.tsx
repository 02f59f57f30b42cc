"use client";
import { Link } from "@/components/ui/link";
import { usePathname, useRouter, useSearchParams } from "next/navigation";
import { useEffect } from "react";
import { RUN_OUTCOMES, RUN_STATUSES, listRuns, listSessions } from "@/lib/api";
import { formatDuration, formatRelative, formatTime, shortId } from "@/lib/format";
import { getSocket, onEveryConnect } from "@/lib/socket";
import { useAsync } from "@/components/ui/use-async";
import { EmptyState, ErrorState, Spinner, StatusBadge } from "@/components/ui/states";
import { runSummary } from "@/lib/run-summary";

const truncate = (text: string, max: number) => (text.length > max ? `${text.slice(0, max - 1)}…` : text);

export function RunsDashboard() {
  const router = useRouter();
  const pathname = usePathname();
  const params = useSearchParams();
  const sessionId = params.get("sessionId") ?? "";
  const status = params.get("status") ?? "";
  const outcome = params.get("outcome") ?? "";
  const runs = useAsync(() => listRuns({ sessionId, status, outcome, limit: 200 }), [sessionId, status, outcome]);
  const sessions = useAsync(listSessions, []);
  const sessionName = new Map((sessions.data ?? []).map((s) => [s.id, s.name]));

  useEffect(() => {
    const socket = getSocket();
    let timer: ReturnType<typeof setTimeout> | null = null;
    const onStatus = () => {
      if (timer) return;
      timer = setTimeout(() => {
        timer = null;
        void runs.reload();
      }, 200);
    };
    socket.on("run:status", onStatus);
    const stop = onEveryConnect(socket, () => socket.emit("runs:subscribe"));
    // Safety net for a socket that cannot connect.
    const poll = setInterval(() => void runs.reload(), 10_000);
    return () => {
      socket.off("run:status", onStatus);
      stop();
      clearInterval(poll);
      if (timer) clearTimeout(timer);
    };
  }, [sessionId, status, outcome]);

  const setFilter = (key: string, value: string) => {
    const next = new URLSearchParams(params.toString());
    if (value) next.set(key, value);
    else next.delete(key);
    router.replace(`${pathname}${next.size ? `?${next}` : ""}`);
  };

  return (
    <>
      <div className="page-head">
        <h1>Runs</h1>
        {runs.loading && runs.data ? <span className="spinner" aria-label="refreshing" /> : null}
      </div>
      <div className="filters">
        <label className="field">
          <span>Session</span>
          <select value={sessionId} onChange={(event) => setFilter("sessionId", event.target.value)} data-testid="filter-session">
            <option value="">All sessions</option>
            {(sessions.data ?? []).map((s) => (
              <option key={s.id} value={s.id}>
                {s.name || s.id}
              </option>
            ))}
          </select>
        </label>
        <label className="field">
          <span>Status</span>
          <select value={status} onChange={(event) => setFilter("status", event.target.value)} data-testid="filter-status">
            <option value="">Any status</option>
            {RUN_STATUSES.map((s) => (
              <option key={s}>{s}</option>
            ))}
          </select>
        </label>
        <label className="field">
          <span>Outcome</span>
          <select value={outcome} onChange={(event) => setFilter("outcome", event.target.value)} data-testid="filter-outcome">
            <option value="">Any outcome</option>
            {RUN_OUTCOMES.map((o) => (
              <option key={o}>{o}</option>
            ))}
          </select>
        </label>
        {sessionId || status || outcome ? (
          <button className="btn ghost small" onClick={() => router.replace(pathname)}>
            Clear filters
          </button>
        ) : null}
      </div>
      {runs.error && !runs.data ? (
        <ErrorState message={runs.error} onRetry={() => void runs.reload()} />
      ) : !runs.data ? (
        <Spinner label="Loading runs…" />
      ) : runs.data.length === 0 ? (
        <EmptyState title={sessionId || status || outcome ? "No runs match these filters" : "No runs yet"} testId="runs-empty">
          Every script run and command leaves a run here, with its logs and a signed receipt.
        </EmptyState>
      ) : (
        <div className="card flush">
          <table className="table" data-testid="runs-table">
            <thead>
              <tr>
                <th>Run</th>
                <th>Session</th>
                <th>What ran</th>
                <th>Status</th>
                <th>Outcome</th>
                <th>Exit</th>
                <th>Duration</th>
                <th>Started</th>
                <th>Receipt</th>
              </tr>
            </thead>
            <tbody>
              {runs.data.map((run) => (
                <tr key={run.id} data-testid="run-row" data-run-id={run.id}>
                  <td>
                    <Link href={`/runs/${run.id}`} className="mono">
                      {shortId(run.id)}
                    </Link>
                  </td>
                  <td>
                    <Link href={`/sessions/${run.sessionId}`}>{sessionName.get(run.sessionId) ?? shortId(run.sessionId)}</Link>
                  </td>
                  <td>
                    <span className="muted tiny">{run.tool}</span>{" "}
                    <code className="run-what" title={runSummary(run.tool, (run as { args?: unknown }).args)} data-testid="run-row-what">
                      {truncate(runSummary(run.tool, (run as { args?: unknown }).args), 80)}
                    </code>
                  </td>
                  <td>
                    <StatusBadge value={run.status} testId="run-row-status" />
                  </td>
                  <td>{run.outcome ? <StatusBadge value={run.outcome} /> : <span className="muted">—</span>}</td>
                  <td>{run.exitCode ?? "—"}</td>
                  <td>{formatDuration(run.durationMs)}</td>
                  <td className="muted" title={formatTime(run.startedAt)}>
                    {formatRelative(run.startedAt)}
                  </td>
                  <td>{run.receiptId ? <span className="badge ok">sealed</span> : <span className="muted">—</span>}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </>
  );
}
