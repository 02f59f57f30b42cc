"use client";
import { Link } from "@/components/ui/link";
import { useEffect, useState, type ReactNode } from "react";
import { useRouter } from "next/navigation";
import { callToolOnce, callerLabel, cancelRun, errorMessage, getRun, listApprovals, runLogDownloadUrl, shareReceipt, unshareReceipt, verifyReceipt, type LogStream, type Run, type Verification } from "@/lib/api";
import { rerunBlocker, runSummary } from "@/lib/run-summary";
import { boundContent } from "@/lib/bound-content";
import { LongText } from "@/components/ui/long-text";
import { formatDuration, formatTime, shortId } from "@/lib/format";
import { getSocket, onEveryConnect } from "@/lib/socket";
import { useAsync } from "@/components/ui/use-async";
import { useAction } from "@/components/ui/use-action";
import { CopyField } from "@/components/ui/copy-field";
import { EmptyState, ErrorState, Spinner, StatusBadge } from "@/components/ui/states";
import { ReceiptView } from "@/components/receipts/receipt-view";
import { ResultImages } from "@/components/runs/result-images";
import { LogView, endedLogEmpty } from "./log-view";
import { useRunStream } from "./use-run-stream";

/** The run's one log: stdout and stderr as written, live while it runs (use-run-stream), read in full once it ended. */
function RunLog({ runId }: { runId: string }) {
  const stream = useRunStream(runId);
  const live = stream.status === "running";
  const startedAt = stream.run ? Date.parse(stream.run.startedAt) : undefined;
  return (
    <LogView
      chunks={stream.chunks}
      times={stream.times}
      {...(startedAt !== undefined ? { startedAt } : {})}
      live={live}
      download={{ href: runLogDownloadUrl(runId, "combined" as LogStream), name: `${runId}.log` }}
      empty={stream.error ?? (stream.status === null ? "Loading…" : live ? "Waiting for output…" : stream.run ? endedLogEmpty(stream.run.stdoutBytes + stream.run.stderrBytes) : "No output")}
    />
  );
}

/** Re-run: the same tool and arguments, through admission again (it may park for approval); Cancel a live run. */
function RunActions({ run }: { run: Run & { args?: unknown } }) {
  const router = useRouter();
  const action = useAction();
  const [note, setNote] = useState<ReactNode>(null);
  const blocker = rerunBlocker(run.args);
  const rerun = () =>
    action.run(async () => {
      setNote("Running again…");
      const outcome = await callToolOnce(run.sessionId, run.tool, run.args ?? {});
      if (outcome.kind === "parked") {
        setNote(
          <>
            Parked for approval <Link href="/approvals">{shortId(outcome.parked.approvalId)}</Link>: it runs once an operator approves it.
          </>,
        );
        return;
      }
      const { result } = outcome;
      if (result.runId) router.push(`/runs/${result.runId}`);
      else setNote(result.error ? `Not run: ${result.error.message}` : "Done, with no run recorded");
    });
  const cancel = () =>
    action.run(async () => {
      await cancelRun(run.id);
      setNote("Cancel sent");
    });
  return (
    <div className="row wrap">
      {run.status === "running" ? (
        <button className="btn small danger" onClick={() => void cancel()} disabled={action.busy} data-testid="run-cancel">
          Cancel
        </button>
      ) : null}
      <button className="btn small" onClick={() => void rerun()} disabled={action.busy || blocker !== null} title={blocker ? `Cannot re-run here: ${blocker}` : "Same tool and arguments, through admission again"} data-testid="run-rerun">
        Re-run
      </button>
      {note ? <span className="muted tiny" data-testid="run-action-note">{note}</span> : null}
      {action.error ? <span className="bad-text tiny">{action.error}</span> : null}
    </div>
  );
}

/**
 * The script a parked run was approved to run, as its approval text bound it (content and sha256): what
 * the receipt's script hash stands for. Shown to whoever may read approvals; nothing when there is none.
 */
function ApprovedScript({ approvalId }: { approvalId: string }) {
  const approvals = useAsync(() => listApprovals("approved"), [approvalId]);
  const approval = approvals.data?.find((a) => a.id === approvalId);
  const script = approval ? boundContent(approval.text) : undefined;
  if (!script) return null;
  return (
    <details open style={{ marginTop: 8 }} data-testid="run-approved-script">
      <summary className="tiny">
        Script as approved: {script.title}
        {script.truncated ? ", shown in part" : ""}
      </summary>
      <LongText className="block mono" testId="run-approved-script-content" text={script.content} />
    </details>
  );
}

function ShareBox({ receiptId }: { receiptId: string }) {
  const [url, setUrl] = useState<string | null>(null);
  const action = useAction();

  const share = () =>
    action.run(async () => {
      const link = await shareReceipt(receiptId);
      // The runner may answer with its own origin or a path: the page lives on this origin.
      setUrl(`${window.location.origin}/share/${encodeURIComponent(link.token)}`);
    });
  const revoke = () =>
    action.run(async () => {
      await unshareReceipt(receiptId);
      setUrl(null);
    });
  return (
    <div className="stack">
      {url ? (
        <CopyField value={url} testId="share-url">
          <button className="btn small ghost danger" onClick={() => void revoke()} disabled={action.busy} data-testid="unshare">
            Revoke
          </button>
        </CopyField>
      ) : (
        <div className="row">
          <button className="btn primary small" onClick={() => void share()} disabled={action.busy} data-testid="share-receipt">
            {action.busy ? "Creating link…" : "Share receipt"}
          </button>
          <span className="muted tiny">Anyone with the link sees this receipt, its verification and the logs — nothing else of the session.</span>
        </div>
      )}
      {action.error ? <ErrorState message={action.error} /> : null}
    </div>
  );
}

export function RunDetailView({ runId }: { runId: string }) {
  const detail = useAsync(() => getRun(runId), [runId]);
  const [verification, setVerification] = useState<Verification | null>(null);
  const receipt = detail.data?.receipt ?? null;
  const running = detail.data?.run.status === "running";

  useEffect(() => {
    if (!receipt) return;
    setVerification(null);
    verifyReceipt(receipt)
      .then(setVerification)
      .catch((caught: unknown) => setVerification({ valid: false, reason: `could not verify: ${errorMessage(caught)}` }));
  }, [receipt]);

  useEffect(() => {
    const socket = getSocket();
    const onStatus = (event: { runId: string }) => {
      if (event.runId === runId) void detail.reload();
    };
    socket.on("run:status", onStatus);
    const stop = onEveryConnect(socket, () => socket.emit("runs:subscribe"));
    return () => {
      socket.off("run:status", onStatus);
      stop();
    };
  }, [runId]);

  useEffect(() => {
    if (!running) return;
    const timer = setInterval(() => void detail.reload(), 2000);
    return () => clearInterval(timer);
  }, [running]);

  if (detail.error && !detail.data) return <ErrorState message={detail.error} onRetry={() => void detail.reload()} />;
  if (!detail.data) return <Spinner label="Loading run…" />;
  const { run, toolCalls } = detail.data;
  const approvalId = toolCalls.find((call) => call.approvalId)?.approvalId ?? null;

  return (
    <>
      <div className="page-head">
        <Link href="/runs" className="muted">
          Runs
        </Link>
        <span className="muted">/</span>
        <h1 className="mono" data-testid="run-id">
          {run.id}
        </h1>
      </div>
      <div className="card">
        <div className="row wrap" style={{ marginBottom: 12 }}>
          <StatusBadge value={run.status} testId="run-detail-status" />
          {run.outcome ? <StatusBadge value={run.outcome} testId="run-detail-outcome" /> : null}
          <span className="muted">{run.tool}</span>
          <div className="spacer" />
          <RunActions run={run} />
        </div>
        <pre className="output run-command" data-testid="run-command">
          {runSummary(run.tool, (run as { args?: unknown }).args)}
        </pre>
        {approvalId ? <ApprovedScript approvalId={approvalId} /> : null}
        <dl className="kv">
          <dt>Session</dt>
          <dd>
            <Link href={`/sessions/${run.sessionId}`}>{shortId(run.sessionId)}</Link>
          </dd>
          {approvalId ? (
            <>
              <dt>Allowed by</dt>
              <dd data-testid="run-detail-approval">
                <Link href="/approvals">approval {shortId(approvalId)}</Link>
              </dd>
            </>
          ) : null}
          <dt>Started by</dt>
          <dd data-testid="run-detail-caller">{callerLabel(run.caller)}</dd>
          <dt>Exit code</dt>
          <dd>{run.exitCode ?? "—"}</dd>
          <dt>Started</dt>
          <dd>{formatTime(run.startedAt)}</dd>
          <dt>Ended</dt>
          <dd>{formatTime(run.endedAt)}</dd>
          <dt>Duration</dt>
          <dd>{formatDuration(run.durationMs)}</dd>
        </dl>
        <ResultImages details={(run as { details?: unknown }).details} />
      </div>
      <div className="card">
        <div className="card-title">
          <h2>Log</h2>
        </div>
        <RunLog runId={run.id} />
      </div>
      <div className="card">
        <div className="card-title">
          <h2>Receipt</h2>
        </div>
        {receipt ? (
          <div className="stack">
            <ReceiptView receipt={receipt} verification={verification} />
            <ShareBox receiptId={receipt.body.id} />
          </div>
        ) : (
          <EmptyState title={running ? "Sealed when the run ends" : "No receipt"} testId="no-receipt">
            {running ? "The runner signs a receipt as soon as the run finishes." : "This run has no sealed receipt."}
          </EmptyState>
        )}
      </div>
      <div className="card flush">
        <div className="card-title pad" style={{ padding: "14px 20px 4px" }}>
          <h2>Tool calls</h2>
        </div>
        {toolCalls.length === 0 ? (
          <div className="pad">
            <EmptyState title="No tool calls recorded" />
          </div>
        ) : (
          <table className="table compact" data-testid="tool-calls">
            <thead>
              <tr>
                <th>Tool</th>
                <th>Caller</th>
                <th>Class</th>
                <th>Verdict</th>
                <th>Result</th>
                <th>Duration</th>
                <th>When</th>
              </tr>
            </thead>
            <tbody>
              {toolCalls.map((call) => (
                <tr key={call.id} data-testid="tool-call-row">
                  <td className="mono">{call.tool}</td>
                  <td>{call.caller ?? "—"}</td>
                  <td>{call.actionClass ?? "—"}</td>
                  <td>
                    {call.verdict ? <StatusBadge value={call.verdict} /> : "—"}
                    {call.approvalId ? <span className="muted tiny"> {shortId(call.approvalId)}</span> : null}
                  </td>
                  <td>{call.ok === true ? <span className="badge ok">ok</span> : call.ok === false ? <span className="badge bad">{call.errorCode ?? "error"}</span> : "—"}</td>
                  <td>{formatDuration(call.durationMs)}</td>
                  <td className="muted">{formatTime(call.createdAt)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </div>
    </>
  );
}
