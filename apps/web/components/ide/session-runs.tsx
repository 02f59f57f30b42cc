"use client";
import { Link } from "@/components/ui/link";
import type { Run } from "@/lib/api";
import { formatDuration, formatRelative, shortId } from "@/lib/format";
import { EmptyState, Spinner, StatusBadge } from "@/components/ui/states";

/** The last one holds each row's "show output". */
const COLUMNS = ["Run", "Tool", "Status", "Exit", "Duration", "Started", ""] as const;

/** The session's runs in the bottom panel's Runs tab; "show output" shows a run in the Output tab. */
export function SessionRuns({ runs, currentRunId, onShow }: { runs: Run[] | null; currentRunId: string | null; onShow: (id: string) => void }) {
  if (!runs) return <Spinner label="Loading runs…" />;
  if (runs.length === 0) return <EmptyState title="No runs in this session yet">Runs of scripts and commands appear here with their outcome and receipt.</EmptyState>;
  return (
    <table className="table compact" data-testid="session-runs">
      <thead>
        <tr>
          {COLUMNS.map((column) => (
            <th key={column}>{column}</th>
          ))}
        </tr>
      </thead>
      <tbody>
        {runs.map((run) => (
          <tr key={run.id} className={run.id === currentRunId ? "selected" : undefined} data-testid="session-run-row">
            <td>
              <Link href={`/runs/${run.id}`} className="mono">
                {shortId(run.id)}
              </Link>
            </td>
            <td>{run.tool}</td>
            <td>
              <StatusBadge value={run.outcome ?? run.status} />
            </td>
            <td>{run.exitCode ?? "—"}</td>
            <td>{formatDuration(run.durationMs)}</td>
            <td className="muted">{formatRelative(run.startedAt)}</td>
            <td>
              <button className="link-btn" onClick={() => onShow(run.id)}>
                show output
              </button>
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
